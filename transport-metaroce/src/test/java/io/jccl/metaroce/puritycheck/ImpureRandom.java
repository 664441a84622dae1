package io.jccl.metaroce.puritycheck;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/** Breaks "no ambient randomness". */
final class ImpureRandom {
    private ImpureRandom() {
    }

    static double random() throws NoSuchAlgorithmException {
        return new Random().nextInt() + new SecureRandom().nextInt() + SecureRandom.getInstanceStrong().nextInt()
                + new SplittableRandom().nextInt() + ThreadLocalRandom.current().nextInt() + Math.random()
                + UUID.randomUUID().hashCode() + RandomGenerator.getDefault().nextInt()
                + RandomGenerator.of("L64X128MixRandom").nextInt();
    }
}
