package io.jccl;

import java.util.Objects;

/**
 * The one exception JCCL throws, carrying an {@link ErrorCode} that says what kind of failure it is.
 *
 * <p>Argument errors are thrown directly by the call; failures during an operation complete its
 * {@link CollectiveFuture} exceptionally with this type.
 */
public class JcclException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    /**
     * @param code    the kind of failure
     * @param message what went wrong, naming the parameter or peer involved
     */
    public JcclException(ErrorCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    /**
     * @param code    the kind of failure
     * @param message what went wrong
     * @param cause   the underlying failure
     */
    public JcclException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** @return the kind of failure */
    public ErrorCode code() {
        return code;
    }

    @Override
    public String getMessage() {
        return code + ": " + super.getMessage();
    }

    /** @return the message without the code prefix */
    public String detail() {
        return super.getMessage();
    }

    static JcclException invalidArgument(String message) {
        return new JcclException(ErrorCode.INVALID_ARGUMENT, message);
    }
}
