package io.jccl.examples.logistic;

import java.util.Objects;

/**
 * Limited-memory BFGS (Nocedal and Wright, Numerical Optimization, algorithms 7.4 and 7.5) with a backtracking line
 * search on the Armijo condition: the optimiser MLlib's {@code LogisticRegression} also uses, so that the Spark
 * example compares communication, not optimisers.
 *
 * <p>Every decision (step accepted, update kept, converged) depends only on the objective's values and gradients.
 * When the objective is a sum all-reduced across ranks, every rank receives the same values and so takes the same
 * steps: the ranks stay in lockstep, issue the same collectives, and end with the same model.
 */
public final class Lbfgs {
    /** Sufficient decrease constant of the Armijo condition. */
    private static final double ARMIJO_C1 = 1e-4;
    /** Line search trials before giving up on a direction (each halves the step). */
    private static final int MAX_BACKTRACKS = 40;

    private Lbfgs() {
    }

    /** A differentiable function to minimise. */
    @FunctionalInterface
    public interface Objective {
        /**
         * @param x        the point (not to be modified)
         * @param gradient where to write the gradient at {@code x}
         * @return the value at {@code x}
         */
        double valueAndGradient(double[] x, double[] gradient);
    }

    /**
     * The outcome.
     *
     * @param x           the last accepted point
     * @param value       the objective there
     * @param iterations  accepted steps taken
     * @param evaluations objective evaluations (line search trials included)
     * @param converged   whether it stopped because the relative improvement fell to the tolerance, no step lowered
     *                    the value any more, or the gradient vanished, rather than at the iteration limit
     */
    public record Result(double[] x, double value, int iterations, int evaluations, boolean converged) {
    }

    /**
     * Minimises {@code f} from {@code start}.
     *
     * @param f             the objective
     * @param start         the starting point (not modified)
     * @param maxIterations at most this many accepted steps, 0 or more
     * @param tolerance     stop once a step improves the value by at most this fraction of it, 0 or more (0: only when
     *                      a step no longer improves it at all)
     * @param memory        correction pairs kept, at least 1 (MLlib uses 10)
     * @return the result
     * @throws IllegalArgumentException for a negative limit or tolerance, or a memory below 1
     */
    public static Result minimize(Objective f, double[] start, int maxIterations, double tolerance, int memory) {
        Objects.requireNonNull(f, "f");
        if (maxIterations < 0 || !(tolerance >= 0) || memory < 1) {
            throw new IllegalArgumentException("maxIterations " + maxIterations + ", tolerance " + tolerance
                    + " and memory " + memory + ": need maxIterations >= 0, tolerance >= 0, memory >= 1");
        }
        int n = start.length;
        double[] x = start.clone();
        double[] g = new double[n];
        double fx = f.valueAndGradient(x, g);
        int evaluations = 1;
        double[][] s = new double[memory][n];
        double[][] y = new double[memory][n];
        double[] rho = new double[memory];
        double[] alpha = new double[memory];
        int stored = 0;
        int newest = -1;
        double[] direction = new double[n];
        double[] xNew = new double[n];
        double[] gNew = new double[n];
        int iterations = 0;
        boolean converged = norm(g) == 0;
        while (!converged && iterations < maxIterations) {
            // Two-loop recursion: direction = -H g, H the inverse Hessian approximation from the stored pairs.
            for (int i = 0; i < n; i++) {
                direction[i] = -g[i];
            }
            for (int k = 0; k < stored; k++) {
                int slot = Math.floorMod(newest - k, memory);
                alpha[slot] = rho[slot] * dot(s[slot], direction);
                axpy(-alpha[slot], y[slot], direction);
            }
            if (stored > 0) {
                double gamma = dot(s[newest], y[newest]) / dot(y[newest], y[newest]);
                for (int i = 0; i < n; i++) {
                    direction[i] *= gamma;
                }
            }
            for (int k = stored - 1; k >= 0; k--) {
                int slot = Math.floorMod(newest - k, memory);
                double beta = rho[slot] * dot(y[slot], direction);
                axpy(alpha[slot] - beta, s[slot], direction);
            }
            double slope = dot(g, direction);
            if (!(slope < 0)) {
                // Not a descent direction (the curvature pairs went stale): start over from steepest descent.
                stored = 0;
                for (int i = 0; i < n; i++) {
                    direction[i] = -g[i];
                }
                slope = -dot(g, g);
            }
            // Without curvature information the gradient's scale is arbitrary: make the first trial step unit length.
            double step = stored == 0 ? Math.min(1.0, 1.0 / Math.sqrt(-slope)) : 1.0;
            double fNew = Double.NaN;
            boolean accepted = false;
            for (int trial = 0; trial < MAX_BACKTRACKS && !accepted; trial++) {
                for (int i = 0; i < n; i++) {
                    xNew[i] = x[i] + step * direction[i];
                }
                fNew = f.valueAndGradient(xNew, gNew);
                evaluations++;
                accepted = fNew <= fx + ARMIJO_C1 * step * slope;
                if (!accepted) {
                    step *= 0.5;
                }
            }
            if (!accepted) {
                // No step along this direction lowers the value in float64: the minimum is as close as it gets.
                converged = true;
                break;
            }
            int slot = (newest + 1) % memory;
            for (int i = 0; i < n; i++) {
                s[slot][i] = xNew[i] - x[i];
                y[slot][i] = gNew[i] - g[i];
            }
            double sy = dot(s[slot], y[slot]);
            // Keep the pair only when it has positive curvature, which keeps H positive definite (a Wolfe line
            // search would guarantee it; Armijo backtracking does not).
            if (sy > 1e-12 * dot(y[slot], y[slot])) {
                rho[slot] = 1.0 / sy;
                newest = slot;
                stored = Math.min(stored + 1, memory);
            }
            double improvement = (fx - fNew) / Math.max(Math.max(Math.abs(fx), Math.abs(fNew)), 1e-300);
            System.arraycopy(xNew, 0, x, 0, n);
            System.arraycopy(gNew, 0, g, 0, n);
            fx = fNew;
            iterations++;
            // "<=": with tolerance 0 it stops once a step no longer lowers the value at all, where the Armijo test
            // still accepts steps (its decrease is below rounding) and every further iteration would be wasted.
            converged = improvement <= tolerance || norm(g) == 0;
        }
        return new Result(x, fx, iterations, evaluations, converged);
    }

    private static double dot(double[] a, double[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }

    private static double norm(double[] a) {
        return Math.sqrt(dot(a, a));
    }

    private static void axpy(double a, double[] x, double[] y) {
        for (int i = 0; i < x.length; i++) {
            y[i] += a * x[i];
        }
    }
}
