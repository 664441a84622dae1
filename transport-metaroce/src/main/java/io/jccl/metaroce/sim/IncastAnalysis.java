package io.jccl.metaroce.sim;

/**
 * Convergence and fairness of many senders into one receiver, from a {@link RateMonitor} whose bins are one base
 * round trip wide.
 *
 * <p>A sender's rate at bin {@code e} is its bytes over the window of {@code windowBins} bins ending at {@code e}
 * (a rate needs a window of many packets to be measurable to 10%). The fair share at {@code e} is the mean of the
 * senders' rates. The senders have converged at the first window start {@code k} such that, for {@code hold}
 * consecutive windows starting at {@code k, k+1, ...}, every sender's rate is within {@code tolerance} of the fair
 * share; convergence is reported as {@code k} minus the first bin with any delivery, in bins (round trips): the
 * number of round trips before the rates were fair. Jain's index {@code (sum x)^2 / (n sum x^2)} is taken over the
 * senders' bytes in the steady state, from convergence (or, if they never converge, from the first delivery) to
 * {@code untilNs} (e.g. when the first sender finished, after which the fair share changes).
 */
public final class IncastAnalysis {
    private IncastAnalysis() {
    }

    /**
     * What the analysis found.
     *
     * @param senders                 senders followed
     * @param binNs                   bin width (one round trip)
     * @param windowBins              window over which rates are measured
     * @param convergenceRtts         round trips until every rate was within the tolerance of the fair share; -1
     *                                if that never happened
     * @param jainIndex               Jain's fairness index over the steady state (1 = perfectly fair)
     * @param aggregateBytesPerSecond bytes per second delivered to the receiver over the steady state
     * @param steadyFromNs            start of the steady state
     * @param steadyUntilNs           its end
     */
    public record Stats(int senders, long binNs, int windowBins, long convergenceRtts, double jainIndex,
                        double aggregateBytesPerSecond, long steadyFromNs, long steadyUntilNs) {
    }

    /**
     * @param m          the measurements
     * @param windowBins bins per rate window (at least 1)
     * @param untilNs    end of the analysed interval
     * @param tolerance  allowed relative deviation from the fair share (0.1 = 10%)
     * @param hold       consecutive fair windows needed
     * @return the statistics
     */
    public static Stats analyze(RateMonitor m, int windowBins, long untilNs, double tolerance, int hold) {
        if (windowBins < 1 || hold < 1 || !(tolerance > 0)) {
            throw new IllegalArgumentException("windowBins, hold >= 1 and tolerance > 0 needed");
        }
        int n = m.senders();
        long binNs = m.binNs();
        int end = (int) Math.min(m.bins(), Math.max(0, untilNs / binNs)); // bins [start, end) are analysed
        int start = -1;
        for (int b = 0; b < end && start < 0; b++) {
            for (int s = 0; s < n; s++) {
                if (m.bytes(s, b) > 0) {
                    start = b;
                    break;
                }
            }
        }
        if (start < 0) {
            return new Stats(n, binNs, windowBins, -1, 0, 0, 0, 0);
        }
        long convergedAt = -1;
        int run = 0;
        long[] window = new long[n];
        for (int k = start; k + windowBins <= end; k++) {
            double total = 0;
            for (int s = 0; s < n; s++) {
                long sum = 0;
                for (int b = k; b < k + windowBins; b++) {
                    sum += m.bytes(s, b);
                }
                window[s] = sum;
                total += sum;
            }
            double fair = total / n;
            boolean ok = fair > 0;
            for (int s = 0; s < n && ok; s++) {
                ok = Math.abs(window[s] - fair) <= tolerance * fair;
            }
            run = ok ? run + 1 : 0;
            if (run == hold) {
                convergedAt = k - hold + 1;
                break;
            }
        }
        int from = convergedAt >= 0 ? (int) convergedAt : start;
        double sum = 0;
        double sumSquares = 0;
        for (int s = 0; s < n; s++) {
            long x = 0;
            for (int b = from; b < end; b++) {
                x += m.bytes(s, b);
            }
            sum += x;
            sumSquares += (double) x * x;
        }
        double jain = sumSquares == 0 ? 0 : sum * sum / (n * sumSquares);
        long fromNs = from * binNs;
        long untilBinNs = (long) end * binNs;
        double rate = untilBinNs > fromNs ? sum * 1e9 / (untilBinNs - fromNs) : 0;
        return new Stats(n, binNs, windowBins, convergedAt < 0 ? -1 : convergedAt - start, jain, rate, fromNs,
                untilBinNs);
    }
}
