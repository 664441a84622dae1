package io.jccl.metaroce.sim.dc;

import java.util.Objects;

/**
 * The nodes, ports and routes of a {@link ClosConfig}: hosts are nodes {@code 0..hosts-1}, then each plane's
 * switches. Every directed link is one output port, numbered: the hosts' NIC ports first ({@code host * planes +
 * plane}), then each plane's switches' ports, a switch's down ports before its up ports.
 *
 * <p>Routing is up/down: a switch above the destination sends it down the one port towards it; any other sends it up,
 * choosing among its up ports by a hash of the packet's 5-tuple (source and destination host, UDP source and
 * destination port, UDP) salted with the switch, as ECMP does. A host picks the plane; a new UDP source port picks
 * new uplinks.
 */
public final class ClosTopology {
    /** The UDP destination port of every packet (RoCEv2's 4791). */
    public static final int UDP_DESTINATION_PORT = 4791;

    /** Port kinds. */
    public static final byte NIC = 0;
    /** A switch port towards a host (the last hop). */
    public static final byte TO_HOST = 1;
    /** A port between two switches. */
    public static final byte FABRIC = 2;

    private static final byte TOR = 0;
    private static final byte AGG = 1;
    private static final byte CORE = 2;

    private final ClosConfig config;
    private final int hosts;
    private final int planes;
    private final int half;
    private final int hostsPerTor;
    /** Switches of each role in one plane. */
    private final int tors;
    private final int aggs;
    private final int cores;
    private final int switchesPerPlane;
    private final int portsPerPlane;
    private final int nicPorts;
    /** Per switch (node - hosts): role, index among its role in its plane, plane, first port. */
    private final byte[] role;
    private final int[] local;
    private final int[] firstPort;
    /** Per port: the node at its far end (-1: an empty host slot), its kind, its plane. */
    private final int[] portTarget;
    private final int[] portOwner;
    private final byte[] portKind;

    /** Builds the fabric's wiring. */
    public ClosTopology(ClosConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        int k = config.radix();
        this.hosts = config.hosts();
        this.planes = config.planes();
        this.half = k / 2;
        this.hostsPerTor = config.hostsPerTor();
        this.tors = config.tiers() == 3 ? k * half : k;
        this.aggs = config.tiers() == 3 ? k * half : 0;
        this.cores = config.tiers() == 3 ? half * half : half;
        this.switchesPerPlane = tors + aggs + cores;
        long perPlane = (long) tors * (hostsPerTor + half) + (long) aggs * k + (long) cores * k;
        long total = (long) hosts * planes + perPlane * planes;
        long nodes = hosts + (long) switchesPerPlane * planes;
        if (total > Integer.MAX_VALUE / 2 || nodes > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("fabric too large: " + total + " ports, " + nodes + " nodes");
        }
        this.portsPerPlane = (int) perPlane;
        this.nicPorts = hosts * planes;
        int switchCount = switchesPerPlane * planes;
        role = new byte[switchCount];
        local = new int[switchCount];
        firstPort = new int[switchCount];
        portTarget = new int[(int) total];
        portOwner = new int[(int) total];
        portKind = new byte[(int) total];
        for (int h = 0; h < hosts; h++) {
            for (int p = 0; p < planes; p++) {
                portTarget[h * planes + p] = torNode(p, h / hostsPerTor);
                portOwner[h * planes + p] = h;
                portKind[h * planes + p] = NIC;
            }
        }
        for (int p = 0; p < planes; p++) {
            int port = nicPorts + p * portsPerPlane;
            int s = p * switchesPerPlane;
            for (int t = 0; t < tors; t++, s++) {
                role[s] = TOR;
                local[s] = t;
                firstPort[s] = port;
                for (int d = 0; d < hostsPerTor; d++, port++) {
                    int host = t * hostsPerTor + d;
                    portTarget[port] = host < hosts ? host : -1;
                    portKind[port] = TO_HOST;
                }
                for (int u = 0; u < half; u++, port++) {
                    // Three tiers: up port u goes to aggregation switch u of the pod; two: to spine u.
                    portTarget[port] = config.tiers() == 3 ? aggNode(p, (t / half) * half + u) : coreNode(p, u);
                    portKind[port] = FABRIC;
                }
            }
            for (int a = 0; a < aggs; a++, s++) {
                role[s] = AGG;
                local[s] = a;
                firstPort[s] = port;
                int pod = a / half;
                for (int d = 0; d < half; d++, port++) {
                    portTarget[port] = torNode(p, pod * half + d);
                    portKind[port] = FABRIC;
                }
                for (int u = 0; u < half; u++, port++) {
                    portTarget[port] = coreNode(p, (a % half) * half + u);
                    portKind[port] = FABRIC;
                }
            }
            for (int c = 0; c < cores; c++, s++) {
                role[s] = CORE;
                local[s] = c;
                firstPort[s] = port;
                for (int d = 0; d < k; d++, port++) {
                    // Three tiers: down port d goes to pod d's aggregation switch c / (k/2); two: to leaf d.
                    portTarget[port] = config.tiers() == 3 ? aggNode(p, d * half + c / half) : torNode(p, d);
                    portKind[port] = FABRIC;
                }
            }
        }
        for (int s = 0; s < switchCount; s++) {
            for (int port = firstPort[s]; port < endPort(s); port++) {
                portOwner[port] = hosts + s;
            }
        }
    }

    private int torNode(int plane, int tor) {
        return hosts + plane * switchesPerPlane + tor;
    }

    private int aggNode(int plane, int agg) {
        return hosts + plane * switchesPerPlane + tors + agg;
    }

    private int coreNode(int plane, int core) {
        return hosts + plane * switchesPerPlane + tors + aggs + core;
    }

    /** @return one past the last port of switch {@code s} (node - hosts) */
    private int endPort(int s) {
        return s + 1 < role.length ? firstPort[s + 1] : portTarget.length;
    }

    // ---- Failures: which ports an element has ----

    /** @return every port of {@code plane}: its switches' and the hosts' NIC ports into it */
    public int[] planePorts(int plane) {
        int[] ports = new int[portsPerPlane + hosts];
        int first = firstPortOfPlane(plane);
        for (int i = 0; i < portsPerPlane; i++) {
            ports[i] = first + i;
        }
        for (int h = 0; h < hosts; h++) {
            ports[portsPerPlane + h] = nicPort(h, plane);
        }
        return ports;
    }

    /**
     * @param role    tor, agg or core
     * @param index   the switch's index among its role in its plane
     * @param element what the caller is resolving, for the error
     * @return the switch's node
     */
    public int switchNode(String role, int index, int plane, String element) {
        int count = switch (role) {
            case "tor" -> tors;
            case "agg" -> aggs;
            case "core" -> cores;
            default -> throw new IllegalArgumentException(element + ": no switch role '" + role + "'");
        };
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException(element + ": this fabric has " + (count == 0 ? "no " + role
                    + " switches" : role + " switches 0-" + (count - 1)) + (config.tiers() == 2 && role.equals("core")
                    ? " (in two tiers the spines are core)" : ""));
        }
        return switch (role) {
            case "tor" -> torNode(plane, index);
            case "agg" -> aggNode(plane, index);
            default -> coreNode(plane, index);
        };
    }

    /** @return the port of switch {@code node} for its {@code up}-th link up the tree */
    public int upPort(int node, int up, String element) {
        int s = node - hosts;
        if (role[s] == CORE) {
            throw new IllegalArgumentException(element + ": a core switch has no links up");
        }
        if (up < 0 || up >= half) {
            throw new IllegalArgumentException(element + ": up links are 0-" + (half - 1));
        }
        return firstPort[s] + (role[s] == TOR ? hostsPerTor : half) + up;
    }

    /** @return the switch's own ports and its neighbours' ports towards it */
    public int[] switchPorts(int node) {
        int s = node - hosts;
        int end = endPort(s);
        int[] ports = new int[2 * (end - firstPort[s])];
        int n = 0;
        for (int port = firstPort[s]; port < end; port++) {
            ports[n++] = port;
            int back = reversePort(port);
            if (back >= 0) {
                ports[n++] = back;
            }
        }
        return java.util.Arrays.copyOf(ports, n);
    }

    /** @return both directions of the link {@code port} sends on */
    public int[] linkPorts(int port) {
        int back = reversePort(port);
        return back < 0 ? new int[] {port} : new int[] {port, back};
    }

    /** @return the port at the far end of {@code port}'s link that sends back to its owner, -1 for an empty slot */
    int reversePort(int port) {
        int far = portTarget[port];
        int owner = portOwner[port];
        if (far < 0) {
            return -1;
        }
        if (isHost(far)) {
            return nicPort(far, portPlane(port));
        }
        int s = far - hosts;
        for (int p = firstPort[s]; p < endPort(s); p++) {
            if (portTarget[p] == owner) {
                return p;
            }
        }
        throw new IllegalStateException("port " + port + " has no way back from node " + far);
    }

    /** @return the configuration */
    public ClosConfig config() {
        return config;
    }

    /** @return hosts attached */
    public int hosts() {
        return hosts;
    }

    /** @return planes */
    public int planes() {
        return planes;
    }

    /** @return all nodes: hosts and switches of every plane */
    public int nodes() {
        return hosts + switchesPerPlane * planes;
    }

    /** @return switches in one plane */
    public int switchesPerPlane() {
        return switchesPerPlane;
    }

    /** @return output ports (directed links), the NICs' included */
    public int ports() {
        return portTarget.length;
    }

    /** @return host {@code host}'s NIC port into {@code plane} */
    public int nicPort(int host, int plane) {
        return host * planes + plane;
    }

    /** @return the node at the far end of {@code port}, -1 for a ToR port to an empty host slot */
    public int portTarget(int port) {
        return portTarget[port];
    }

    /** @return the node that sends on {@code port} (a host for a NIC port, else a switch) */
    public int portOwner(int port) {
        return portOwner[port];
    }

    /** @return {@link #NIC}, {@link #TO_HOST} or {@link #FABRIC} */
    public byte portKind(int port) {
        return portKind[port];
    }

    /** @return the plane of {@code port} */
    public int portPlane(int port) {
        return port < nicPorts ? port % planes : (port - nicPorts) / portsPerPlane;
    }

    /** @return the first of {@code plane}'s switch ports (its {@link #portsPerPlane} follow; NIC ports are apart) */
    public int firstPortOfPlane(int plane) {
        return nicPorts + plane * portsPerPlane;
    }

    /** @return how many switch ports one plane has */
    public int portsPerPlane() {
        return portsPerPlane;
    }

    /** @return whether {@code node} is a host */
    public boolean isHost(int node) {
        return node < hosts;
    }

    /**
     * The output port a switch sends a packet on.
     *
     * @param node    the switch
     * @param dst     the destination host
     * @param flowHash {@link #flowHash} of the packet's 5-tuple
     * @return the port
     */
    public int route(int node, int dst, long flowHash) {
        int s = node - hosts;
        int first = firstPort[s];
        int dstTor = dst / hostsPerTor;
        switch (role[s]) {
            case TOR -> {
                if (dstTor == local[s]) {
                    return first + dst % hostsPerTor;
                }
                return first + hostsPerTor + ecmp(flowHash, node, half);
            }
            case AGG -> {
                int pod = local[s] / half;
                if (dstTor / half == pod) {
                    return first + dstTor % half;
                }
                return first + half + ecmp(flowHash, node, half);
            }
            default -> {
                return first + (config.tiers() == 3 ? dstTor / half : dstTor);
            }
        }
    }

    /** @return links a packet crosses from host {@code src} to host {@code dst} (its NIC's included) */
    public int hops(int src, int dst) {
        int a = src / hostsPerTor;
        int b = dst / hostsPerTor;
        if (a == b) {
            return 2;
        }
        if (config.tiers() == 2 || a / half == b / half) {
            return 4;
        }
        return 6;
    }

    /** @return the hash of a UDP packet's 5-tuple that every switch's ECMP choice starts from */
    public static long flowHash(int srcHost, int dstHost, int srcPort, int dstPort) {
        long x = ((long) srcHost << 32 | (dstHost & 0xFFFF_FFFFL)) * 0x9E3779B97F4A7C15L;
        x ^= ((long) srcPort << 16 | (dstPort & 0xFFFF)) + 17L * 0xBF58476D1CE4E5B9L;
        return mix(x);
    }

    /** @return which of {@code n} up ports switch {@code node} picks for a packet of {@code flowHash} */
    public static int ecmp(long flowHash, int node, int n) {
        long h = mix(flowHash ^ (node + 1L) * 0xD6E8FEB86659FD93L);
        return (int) (((h >>> 32) * n) >>> 32);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
