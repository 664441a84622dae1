package io.jccl.metaroce.net;

import io.jccl.metaroce.offload.OffloadSelector;
import io.jccl.metaroce.offload.OffloadSetting;
import io.jccl.net.AbstractNetTransportProvider;
import io.jccl.net.NetException;
import io.jccl.net.NetTransport;
import io.jccl.net.TransportContext;

import java.util.Map;

/**
 * The {@code metaroce} transport plugin: MetaRoCE over UDP, the default between ranks in different processes
 * (priority {@value #PRIORITY}, above TCP's). Ranks of one JVM use the in-JVM transport.
 */
public final class MetaRoceNetTransportProvider extends AbstractNetTransportProvider {
    /** The name users select it by. */
    public static final String NAME = "metaroce";
    /** Its priority among providers. */
    public static final int PRIORITY = 20;

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public MetaRoceNetTransportProvider() {
        super(NAME, PRIORITY, Reach.OTHER_JVM, MetaRoceNetTransportProvider::open,
                MetaRoceNetTransportProvider::check);
    }

    /** Creates the transport; an option refused only at the start fails as that start does, a {@link NetException}. */
    private static NetTransport open(TransportContext context) {
        try {
            return new MetaRoceNetTransport(context);
        } catch (IllegalArgumentException e) {
            throw new NetException(NetException.Reason.IO_ERROR, "metaroce transport: " + e.getMessage(), e);
        }
    }

    /**
     * Checks the {@code JCCL_METAROCE_*} options, and that {@code JCCL_METAROCE_OFFLOAD} names an installed provider
     * if it names one (whether that provider accepts a device is known only when the transport is created).
     */
    private static void check(Map<String, String> options) {
        MetaRoceOptions.parse(options);
        if (OffloadSetting.from(options).mode() == OffloadSetting.Mode.NAMED) {
            OffloadSelector.installed().check(options);
        }
    }
}
