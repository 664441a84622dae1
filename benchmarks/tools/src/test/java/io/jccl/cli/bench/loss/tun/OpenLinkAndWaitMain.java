package io.jccl.cli.bench.loss.tun;

/**
 * Opens a link, prints {@code OPEN <namespace a> <namespace b>} and waits to be killed, never closing it: what a
 * benchmark stopped with SIGTERM or Ctrl-C does. Its shutdown hook must remove the namespaces.
 */
public final class OpenLinkAndWaitMain {
    private OpenLinkAndWaitMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        TunLossLink link = TunLossLink.open(TunLossLink.Settings.of(0.1, 1));
        System.out.println("OPEN " + link.namespace(0) + " " + link.namespace(1));
        System.out.flush();
        Thread.sleep(120_000);
    }
}
