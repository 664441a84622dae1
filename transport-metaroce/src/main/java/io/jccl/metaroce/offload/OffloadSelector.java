package io.jccl.metaroce.offload;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.metaroce.verbs.RdmaDevice;
import io.jccl.metaroce.verbs.RdmaDiscovery;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Decides, once per {@code metaroce} transport, whether an {@link OffloadProvider} carries its connections or the
 * software UDP driver does, and logs the decision in one INFO line ({@code [INIT|NET] MetaRoCE data path: ...}).
 *
 * <p>{@code JCCL_METAROCE_OFFLOAD}:
 * <ul>
 *   <li>{@code auto} (default): discover the RDMA devices, probe the providers from the highest priority down; the
 *   first that accepts takes over; none (or no provider installed) means software UDP. With no provider installed
 *   and the decision line not logged, discovery is skipped: nothing would use it.</li>
 *   <li>{@code off}: software UDP, nothing discovered or probed.</li>
 *   <li>a provider's name: that provider; an error when it is not installed or its probe declines.</li>
 * </ul>
 */
public final class OffloadSelector {
    private static final Logger LOG = JcclLog.logger(EnumSet.of(Subsystem.INIT, Subsystem.NET), OffloadSelector.class);

    private final List<OffloadProvider> providers;
    private final Function<String, RdmaDiscovery.Result> discovery;
    private final Consumer<String> decisionLog;
    private final BooleanSupplier decisionLogged;

    /**
     * A selector over the given providers, for tests and embedders.
     *
     * @param providers      the providers to consider, in any order
     * @param discovery      the discovery to run, given the libibverbs library to load
     * @param decisionLog    where the decision line goes
     * @param decisionLogged whether that line would be shown (discovery is skipped when it is not and nothing
     *                       needs the devices)
     * @throws IllegalArgumentException when a provider's name is invalid or two share one
     */
    public OffloadSelector(List<OffloadProvider> providers, Function<String, RdmaDiscovery.Result> discovery,
                           Consumer<String> decisionLog, BooleanSupplier decisionLogged) {
        Map<String, OffloadProvider> byName = new HashMap<>();
        for (OffloadProvider p : providers) {
            Objects.requireNonNull(p, "provider");
            OffloadSetting.checkName(p.name(), "offload provider " + p.getClass().getName() + " is named '"
                    + p.name() + "'");
            OffloadProvider other = byName.put(p.name(), p);
            if (other != null) {
                throw new IllegalArgumentException("two offload providers are named '" + p.name() + "': "
                        + other.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        List<OffloadProvider> sorted = new ArrayList<>(providers);
        sorted.sort(Comparator.comparingInt(OffloadProvider::priority).reversed()
                .thenComparing(OffloadProvider::name));
        this.providers = List.copyOf(sorted);
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.decisionLog = Objects.requireNonNull(decisionLog, "decisionLog");
        this.decisionLogged = Objects.requireNonNull(decisionLogged, "decisionLogged");
    }

    /**
     * The selector transports use: the providers {@link ServiceLoader} finds, discovery once per JVM and library
     * ({@link RdmaDiscovery#cached}), the decision logged at INFO under {@code INIT} and {@code NET}.
     *
     * @return a selector
     * @throws IllegalArgumentException when an installed provider's name is invalid or two share one
     */
    public static OffloadSelector installed() {
        List<OffloadProvider> found = new ArrayList<>();
        ServiceLoader.load(OffloadProvider.class).forEach(found::add);
        return new OffloadSelector(found, RdmaDiscovery::cached, line -> LOG.info("{}", line), LOG::isInfoEnabled);
    }

    /** @return the providers, highest priority first */
    public List<OffloadProvider> providers() {
        return providers;
    }

    /**
     * Checks {@code JCCL_METAROCE_OFFLOAD} without discovering or probing anything: its form, and that a provider it
     * names is installed.
     *
     * @param options the transport's options
     * @throws IllegalArgumentException naming the setting and what is allowed
     */
    public void check(Map<String, String> options) {
        OffloadSetting setting = OffloadSetting.from(options);
        if (setting.mode() == OffloadSetting.Mode.NAMED
                && providers.stream().noneMatch(p -> p.name().equals(setting.provider()))) {
            throw notInstalled(setting);
        }
    }

    private IllegalArgumentException notInstalled(OffloadSetting setting) {
        return new IllegalArgumentException(setting + " names no installed offload provider (" + installedNames()
                + "): use auto, off, or the name of an installed provider");
    }

    /**
     * Decides, without logging (see {@link #log}).
     *
     * @param options the transport's options: {@code JCCL_METAROCE_OFFLOAD} and {@code JCCL_IBVERBS_LIBRARY} are read
     * @return the decision
     * @throws IllegalArgumentException when {@code JCCL_METAROCE_OFFLOAD} is invalid, names a provider that is not
     *                                  installed, or names one whose probe declines
     */
    public OffloadDecision decide(Map<String, String> options) {
        OffloadSetting setting = OffloadSetting.from(options);
        if (setting.mode() == OffloadSetting.Mode.OFF) {
            return new OffloadDecision(setting, null, null, OffloadDecision.PREFIX + "software UDP (" + setting + ")");
        }
        String library = RdmaDiscovery.libraryFrom(options);
        if (setting.mode() == OffloadSetting.Mode.NAMED) {
            OffloadProvider chosen = providers.stream().filter(p -> p.name().equals(setting.provider())).findFirst()
                    .orElseThrow(() -> notInstalled(setting));
            RdmaDiscovery.Result found = discovery.apply(library);
            OffloadProvider.Probe probe = probe(chosen, found.devices());
            if (!probe.accepted()) {
                throw new IllegalArgumentException(setting + ": the provider declined: " + probe.reason() + " ("
                        + found.summary() + ")");
            }
            return accepted(setting, chosen, probe);
        }
        if (providers.isEmpty()) {
            String devices = decisionLogged.getAsBoolean() ? discovery.apply(library).summary() + "; "
                    : "";
            return new OffloadDecision(setting, null, null, OffloadDecision.PREFIX + "software UDP (" + devices
                    + "offload providers: none installed)");
        }
        RdmaDiscovery.Result found = discovery.apply(library);
        List<String> declined = new ArrayList<>();
        for (OffloadProvider p : providers) {
            OffloadProvider.Probe probe = probe(p, found.devices());
            if (probe.accepted()) {
                return accepted(setting, p, probe);
            }
            declined.add(p.name() + ": " + probe.reason());
        }
        return new OffloadDecision(setting, null, null, OffloadDecision.PREFIX + "software UDP (" + found.summary()
                + "; offload providers declined: " + String.join("; ", declined) + ")");
    }

    /**
     * Logs a decision's line, once per transport creation (at INFO for {@link #installed()}).
     *
     * @param decision what was decided, after any fallback
     */
    public void log(OffloadDecision decision) {
        decisionLog.accept(decision.line());
    }

    private static OffloadDecision accepted(OffloadSetting setting, OffloadProvider provider,
                                            OffloadProvider.Probe probe) {
        RdmaDevice device = probe.device();
        return new OffloadDecision(setting, provider, device, OffloadDecision.PREFIX + "offloaded to "
                + provider.name() + " on " + device.shortText() + ": " + probe.reason());
    }

    /** A probe that throws or answers nothing declines, saying so, rather than failing the transport. */
    private static OffloadProvider.Probe probe(OffloadProvider provider, List<RdmaDevice> devices) {
        try {
            OffloadProvider.Probe probe = provider.probe(devices);
            return probe != null ? probe : OffloadProvider.Probe.decline("its probe answered nothing");
        } catch (RuntimeException e) {
            return OffloadProvider.Probe.decline("its probe failed: " + e);
        }
    }

    private String installedNames() {
        return providers.isEmpty() ? "none is installed" : "installed: "
                + providers.stream().map(OffloadProvider::name).collect(Collectors.joining(", "));
    }
}
