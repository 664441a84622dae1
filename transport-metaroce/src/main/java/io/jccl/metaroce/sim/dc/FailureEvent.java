package io.jccl.metaroce.sim.dc;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A part of the fabric failing or coming back at a virtual time. Written {@code ELEMENT@TIME} (a failure) or
 * {@code ELEMENT+@TIME} (a recovery), TIME with a unit (ns, us, ms, s), ELEMENT one of:
 * <ul>
 *   <li>{@code plane:K}: every switch of plane K and every host's NIC port into it;</li>
 *   <li>{@code switch:torI}, {@code switch:aggI}, {@code switch:coreI}, optionally {@code .pK} for plane K (default
 *       0): the switch's ports and the ports of its neighbours towards it;</li>
 *   <li>{@code link:torI-upU}, {@code link:aggI-upU} (the switch's U-th link up the tree), {@code link:hostH} (the host's
 *       link to its ToR), optionally {@code .pK}: both directions of the link.</li>
 * </ul>
 * Routing does not converge around a failure: ECMP keeps hashing flows onto a failed link, as a fabric does until its
 * control plane reacts, so the transport must move its paths itself (MetaRoCE's reroute changes the UDP source port).
 * Packets queued at a failed port and those that reach it are dropped.
 *
 * @param element what fails, in the form above (normalised to lower case)
 * @param atPs    when, in ps
 * @param down    true: it fails; false: it comes back
 */
public record FailureEvent(String element, long atPs, boolean down) {
    private static final Pattern PLANE = Pattern.compile("plane:(\\d+)");
    private static final Pattern SWITCH = Pattern.compile("switch:(tor|agg|core)(\\d+)(?:\\.p(\\d+))?");
    private static final Pattern UPLINK = Pattern.compile("link:(tor|agg)(\\d+)-up(\\d+)(?:\\.p(\\d+))?");
    private static final Pattern HOST_LINK = Pattern.compile("link:host(\\d+)(?:\\.p(\\d+))?");
    private static final String FORMS = "plane:K, switch:torI|aggI|coreI[.pK], link:torI-upU|aggI-upU[.pK] or "
            + "link:hostH[.pK], then @TIME (e.g. plane:1@200us, switch:core0@1ms, link:tor3-up1.p2+@2ms to restore)";

    /** Checks the element's form and the time. */
    public FailureEvent {
        Objects.requireNonNull(element, "element");
        element = element.toLowerCase(Locale.ROOT);
        if (atPs < 0) {
            throw new IllegalArgumentException("a failure's time must be >= 0, not " + atPs + " ps");
        }
        if (!PLANE.matcher(element).matches() && !SWITCH.matcher(element).matches()
                && !UPLINK.matcher(element).matches() && !HOST_LINK.matcher(element).matches()) {
            throw new IllegalArgumentException("'" + element + "' is not a fabric element; write " + FORMS);
        }
    }

    /** A plane failing ({@code down}) or coming back at {@code atPs}. */
    public static FailureEvent plane(int plane, long atPs, boolean down) {
        if (plane < 0) {
            throw new IllegalArgumentException("plane " + plane + " must be >= 0");
        }
        return new FailureEvent("plane:" + plane, atPs, down);
    }

    /** Parses {@code ELEMENT@TIME} or {@code ELEMENT+@TIME} (see the class comment). */
    public static FailureEvent parse(String text) {
        String t = text.trim();
        int at = t.lastIndexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("a failure is written " + FORMS + ", not '" + text + "'");
        }
        String which = t.substring(0, at);
        boolean up = which.endsWith("+");
        return new FailureEvent(up ? which.substring(0, which.length() - 1) : which,
                parseTimePs(t.substring(at + 1), text), !up);
    }

    /** @return the plane of a plane failure, else -1 */
    public int plane() {
        Matcher m = PLANE.matcher(element);
        return m.matches() ? number(m.group(1)) : -1;
    }

    /**
     * @return the output ports this element takes down or brings back in {@code topology} (both directions of every
     *         link it has)
     * @throws IllegalArgumentException naming the element when the fabric has no such part
     */
    public int[] ports(ClosTopology topology) {
        Matcher m;
        if ((m = PLANE.matcher(element)).matches()) {
            return topology.planePorts(checkPlane(topology, number(m.group(1))));
        }
        if ((m = SWITCH.matcher(element)).matches()) {
            int plane = checkPlane(topology, m.group(3) == null ? 0 : number(m.group(3)));
            return topology.switchPorts(topology.switchNode(m.group(1), number(m.group(2)), plane, element));
        }
        if ((m = UPLINK.matcher(element)).matches()) {
            int plane = checkPlane(topology, m.group(4) == null ? 0 : number(m.group(4)));
            int node = topology.switchNode(m.group(1), number(m.group(2)), plane, element);
            return topology.linkPorts(topology.upPort(node, number(m.group(3)), element));
        }
        m = HOST_LINK.matcher(element);
        if (!m.matches()) {
            throw new IllegalStateException(element);
        }
        int host = number(m.group(1));
        int plane = checkPlane(topology, m.group(2) == null ? 0 : number(m.group(2)));
        if (host >= topology.hosts()) {
            throw new IllegalArgumentException(element + ": host " + host + " is not in 0-" + (topology.hosts() - 1));
        }
        return topology.linkPorts(topology.nicPort(host, plane));
    }

    private int checkPlane(ClosTopology topology, int plane) {
        if (plane >= topology.planes()) {
            throw new IllegalArgumentException(element + ": plane " + plane + " is not in 0-" + (topology.planes() - 1));
        }
        return plane;
    }

    private int number(String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + element + "': " + digits + " is too large");
        }
    }

    private static long parseTimePs(String time, String text) {
        long unitPs;
        String number;
        if (time.endsWith("ns")) {
            unitPs = 1_000;
            number = time.substring(0, time.length() - 2);
        } else if (time.endsWith("us")) {
            unitPs = 1_000_000;
            number = time.substring(0, time.length() - 2);
        } else if (time.endsWith("ms")) {
            unitPs = 1_000_000_000;
            number = time.substring(0, time.length() - 2);
        } else if (time.endsWith("s")) {
            unitPs = 1_000_000_000_000L;
            number = time.substring(0, time.length() - 1);
        } else {
            throw new IllegalArgumentException("the time in '" + text + "' needs a unit: ns, us, ms or s");
        }
        double value;
        try {
            value = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the time in '" + text + "' is not a number");
        }
        if (!(value >= 0) || value * unitPs > 1e18) {
            throw new IllegalArgumentException("the time in '" + text + "' must be >= 0 and below 11 days");
        }
        return Math.round(value * unitPs);
    }
}
