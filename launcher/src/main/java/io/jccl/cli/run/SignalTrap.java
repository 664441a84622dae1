package io.jccl.cli.run;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Catches SIGINT and SIGTERM while a job runs, so the launcher can stop its ranks in order instead of dying
 * first; the previous handlers (the JVM's, which start shutdown) are put back on {@link #close()}.
 *
 * <p>Uses {@code sun.misc.Signal} from the {@code jdk.unsupported} module, which JDK 25 still exports for exactly
 * this; it is reached through reflection so that the build has no warning about internal API, and when it is
 * missing {@link #install} returns a trap that does nothing (the JVM's shutdown then stops the ranks through the
 * job's shutdown hook).
 */
final class SignalTrap implements AutoCloseable {
    private final List<Object[]> restore = new ArrayList<>();

    private SignalTrap() {
    }

    /**
     * @param names   signal names without "SIG", e.g. INT, TERM
     * @param handler called on a JVM signal thread with the name of each signal that arrives
     * @return the installed trap, or one that caught nothing when signals cannot be handled here
     */
    static SignalTrap install(List<String> names, Consumer<String> handler) {
        SignalTrap trap = new SignalTrap();
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
            Method getName = signalClass.getMethod("getName");
            Object proxy = Proxy.newProxyInstance(SignalTrap.class.getClassLoader(), new Class<?>[] {handlerClass},
                    (self, method, args) -> {
                        if (method.getName().equals("handle") && args != null && args.length == 1) {
                            handler.accept((String) getName.invoke(args[0]));
                            return null;
                        }
                        return switch (method.getName()) {
                            case "toString" -> "jccl-run-signal-trap";
                            case "hashCode" -> System.identityHashCode(self);
                            case "equals" -> self == args[0];
                            default -> null;
                        };
                    });
            for (String name : names) {
                Object signal = signalClass.getConstructor(String.class).newInstance(name);
                Object previous = handle.invoke(null, signal, proxy);
                trap.restore.add(new Object[] {handle, signal, previous});
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // Not available (or the signal is reserved, e.g. under -Xrs): rely on the shutdown hook.
            trap.close();
            return new SignalTrap();
        }
        return trap;
    }

    /** @return whether signals are caught */
    boolean active() {
        return !restore.isEmpty();
    }

    /** Puts the previous handlers back. */
    @Override
    public void close() {
        for (Object[] r : restore) {
            try {
                ((Method) r[0]).invoke(null, r[1], r[2]);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // Best effort: the JVM is about to exit anyway.
            }
        }
        restore.clear();
    }
}
