package io.jccl.env;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.UniqueId;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Hands a {@link UniqueId} from rank 0 to the other ranks through a file: rank 0 writes the encoded id to a
 * temporary file readable by its owner only and renames it into place (so a reader sees all of it or nothing);
 * the others poll for it. A reader accepts only a file owned by its own user and writable by nobody else, since
 * whoever controls the file decides which rendezvous the ranks trust.
 */
final class CommIdFile {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final long FIRST_POLL_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long MAX_POLL_NS = TimeUnit.MILLISECONDS.toNanos(250);

    private CommIdFile() {
    }

    /**
     * Writes {@code id} to {@code file} atomically, replacing an older file.
     *
     * @throws JcclException SYSTEM_ERROR when the file cannot be written
     */
    static void publish(Path file, UniqueId id) {
        Path target = file.toAbsolutePath();
        Path dir = target.getParent();
        Path tmp = dir.resolve("." + target.getFileName() + "." + ProcessHandle.current().pid() + "."
                + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        try {
            boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
            if (posix) {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } else {
                Files.createFile(tmp);
            }
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap((id.encode() + "\n").getBytes(StandardCharsets.US_ASCII)));
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the filesystem of " + dir + " cannot rename atomically", e);
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // best effort; the name is unique
            }
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "rank 0 cannot write the communicator id to " + target
                    + " (" + RendezvousChoice.ID_FILE + "): " + e, e);
        }
    }

    /** Removes the file once every rank has joined (rank 0); ignores failures. */
    static void remove(Path file) {
        try {
            Files.deleteIfExists(file.toAbsolutePath());
        } catch (IOException e) {
            // A leftover file is overwritten by the next rank 0 that uses the name.
        }
    }

    /**
     * Waits for rank 0's file and reads it.
     *
     * @param rank    the waiting rank, for messages
     * @param timeout how long to wait at most
     * @return the id
     * @throws JcclException TIMEOUT when the file does not appear in time, INVALID_ARGUMENT when it is not a
     *                       valid id or not safely owned, SYSTEM_ERROR when it cannot be read
     */
    static UniqueId await(Path file, int rank, Duration timeout) {
        Path target = file.toAbsolutePath();
        long startNs = System.nanoTime();
        long deadlineNs = startNs + timeout.toNanos();
        long pollNs = FIRST_POLL_NS;
        while (true) {
            String text = null;
            try {
                checkOwner(target);
                text = Files.readString(target, StandardCharsets.US_ASCII).strip();
            } catch (NoSuchFileException e) {
                // not there yet
            } catch (IOException e) {
                throw new JcclException(ErrorCode.SYSTEM_ERROR, "rank " + rank + " cannot read the communicator id"
                        + " file " + target + ": " + e, e);
            }
            if (text != null) {
                try {
                    return UniqueId.parse(text);
                } catch (IllegalArgumentException e) {
                    throw EnvVars.invalid("the communicator id file " + target + " does not hold an id: "
                            + e.getMessage());
                }
            }
            long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0) {
                throw new JcclException(ErrorCode.TIMEOUT, "rank " + rank + " waited "
                        + Duration.ofNanos(System.nanoTime() - startNs).toMillis() + " ms (the init timeout) for rank 0"
                        + " to write the communicator id to " + target + "; is rank 0 running, and on this host?"
                        + " Across hosts the file must be on a shared filesystem ("
                        + RendezvousChoice.ID_FILE + "), or set " + RendezvousChoice.ADDR + " instead");
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(pollNs, leftNs));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new JcclException(ErrorCode.ABORTED, "rank " + rank + " was interrupted while waiting for "
                        + target, e);
            }
            pollNs = Math.min(MAX_POLL_NS, pollNs * 2);
        }
    }

    /** Refuses a file owned by another user or writable by group or others (POSIX filesystems only). */
    private static void checkOwner(Path file) throws IOException {
        if (!FileSystems.getDefault().supportedFileAttributeViews().contains("unix")) {
            return;
        }
        int uid = (Integer) Files.getAttribute(file, "unix:uid");
        int mode = (Integer) Files.getAttribute(file, "unix:mode");
        Integer self = ownUid();
        if (self != null && uid != self) {
            throw EnvVars.invalid("the communicator id file " + file + " belongs to uid " + uid + ", not to this"
                    + " user (uid " + self + "); refusing it, since its owner decides which rendezvous the ranks"
                    + " join. Remove it or choose another " + RendezvousChoice.ID_FILE);
        }
        if ((mode & 0022) != 0) {
            throw EnvVars.invalid("the communicator id file " + file + " is writable by group or others (mode "
                    + Integer.toOctalString(mode & 0777) + "); refusing it. Remove it or choose another "
                    + RendezvousChoice.ID_FILE);
        }
    }

    /** @return this process's uid (the owner of /proc/self), or null where there is no /proc */
    private static Integer ownUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }
}
