package io.jccl.bootstrap;

import java.io.IOException;

/** The other side broke the rendezvous protocol: a malformed, unexpected or unauthentic frame. */
final class ProtocolException extends IOException {
    private static final long serialVersionUID = 1L;

    ProtocolException(String message) {
        super(message);
    }
}
