package io.jccl.log;

import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.spi.LocationAwareLogger;

/**
 * An SLF4J logger of one or more {@link Subsystem}s in front of the backend's logger of the same name. TRACE, DEBUG
 * and INFO are enabled only when the {@link JcclLog#settings() settings} enable them for one of its subsystems
 * <em>and</em> the backend does; WARN and ERROR only ask the backend. A disabled check reads one volatile field and
 * compares bits: no allocation, no lock. Messages reach the backend prefixed with the subsystem, e.g.
 * {@code [NET] }.
 */
final class GatedLogger extends AbstractLogger {
    private static final long serialVersionUID = 1L;
    /**
     * The class whose frames a location-aware backend (logback) skips to find the caller: our public logging
     * methods are AbstractLogger's, which call {@link #handleNormalizedLoggingCall}.
     */
    private static final String CALLER_BOUNDARY = AbstractLogger.class.getName();

    private final transient Logger delegate;
    private final int mask;
    private final String prefix;

    GatedLogger(Logger delegate, int mask, String prefix) {
        this.name = delegate.getName();
        this.delegate = delegate;
        this.mask = mask;
        this.prefix = prefix;
    }

    /** @return the backend's logger this one hands messages to */
    Logger delegate() {
        return delegate;
    }

    /** @return the prefix every message gets, e.g. {@code "[NET] "} */
    String prefix() {
        return prefix;
    }

    @Override
    public boolean isTraceEnabled() {
        return (JcclLog.current().traceMask & mask) != 0 && delegate.isTraceEnabled();
    }

    @Override
    public boolean isTraceEnabled(Marker marker) {
        return (JcclLog.current().traceMask & mask) != 0 && delegate.isTraceEnabled(marker);
    }

    @Override
    public boolean isDebugEnabled() {
        return (JcclLog.current().debugMask & mask) != 0 && delegate.isDebugEnabled();
    }

    @Override
    public boolean isDebugEnabled(Marker marker) {
        return (JcclLog.current().debugMask & mask) != 0 && delegate.isDebugEnabled(marker);
    }

    @Override
    public boolean isInfoEnabled() {
        return (JcclLog.current().infoMask & mask) != 0 && delegate.isInfoEnabled();
    }

    @Override
    public boolean isInfoEnabled(Marker marker) {
        return (JcclLog.current().infoMask & mask) != 0 && delegate.isInfoEnabled(marker);
    }

    @Override
    public boolean isWarnEnabled() {
        return delegate.isWarnEnabled();
    }

    @Override
    public boolean isWarnEnabled(Marker marker) {
        return delegate.isWarnEnabled(marker);
    }

    @Override
    public boolean isErrorEnabled() {
        return delegate.isErrorEnabled();
    }

    @Override
    public boolean isErrorEnabled(Marker marker) {
        return delegate.isErrorEnabled(marker);
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return CALLER_BOUNDARY;
    }

    /** Called by AbstractLogger after the level check passed; hands the message, prefixed, to the backend. */
    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args,
                                               Throwable throwable) {
        String message = prefix + pattern;
        if (delegate instanceof LocationAwareLogger located) {
            located.log(marker, CALLER_BOUNDARY, level.toInt(), message, args, throwable);
            return;
        }
        Object[] all = args;
        if (throwable != null) {
            all = args == null ? new Object[1] : Arrays.copyOf(args, args.length + 1);
            all[all.length - 1] = throwable;
        }
        if (all == null) {
            all = new Object[0];
        }
        switch (level) {
            case TRACE -> {
                if (marker == null) {
                    delegate.trace(message, all);
                } else {
                    delegate.trace(marker, message, all);
                }
            }
            case DEBUG -> {
                if (marker == null) {
                    delegate.debug(message, all);
                } else {
                    delegate.debug(marker, message, all);
                }
            }
            case INFO -> {
                if (marker == null) {
                    delegate.info(message, all);
                } else {
                    delegate.info(marker, message, all);
                }
            }
            case WARN -> {
                if (marker == null) {
                    delegate.warn(message, all);
                } else {
                    delegate.warn(marker, message, all);
                }
            }
            case ERROR -> {
                if (marker == null) {
                    delegate.error(message, all);
                } else {
                    delegate.error(marker, message, all);
                }
            }
            default -> throw new IllegalStateException("unknown level " + level);
        }
    }
}
