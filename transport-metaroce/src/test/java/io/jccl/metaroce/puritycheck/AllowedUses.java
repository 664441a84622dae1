package io.jccl.metaroce.puritycheck;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Uses what the purity rules allow: none of them may flag this class. */
final class AllowedUses {
    private final AtomicLong published = new AtomicLong();
    private final RandomGenerator random;
    private final Random passedIn;

    AllowedUses(RandomGenerator random, Random passedIn) {
        this.random = random;
        this.passedIn = passedIn;
    }

    long work(long nowNs, byte[] key) throws GeneralSecurityException {
        final Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        final boolean same = MessageDigest.isEqual(mac.doFinal(key), key);
        final long segment = MemorySegment.ofArray(key).byteSize() + ByteBuffer.allocateDirect(8).capacity();
        published.set(nowNs + TimeUnit.MILLISECONDS.toNanos(1));
        return segment + random.nextLong() + passedIn.nextInt() + (same ? 1 : 0);
    }
}
