package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.plan.OpKind;
import io.jccl.plan.Plan;

import java.util.LinkedHashMap;
import java.util.Map;

/** Recently used plans of single collectives, so a training loop reuses its plans instead of rebuilding them. */
final class PlanCache {
    private static final int CAPACITY = 128;

    record Key(OpKind kind, long count, int root, boolean inPlace, int elementBytes, Algorithm algorithm,
               long chunkBytes) {
    }

    private final Map<Key, Plan> plans = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Plan> eldest) {
            return size() > CAPACITY;
        }
    };

    // The most recently used plans, probed first without building a key (a loop alternating between a few shapes
    // allocates nothing): a small ring of their keys' fields.
    private static final int RECENT = 8;
    private final OpKind[] recentKind = new OpKind[RECENT];
    private final long[] recentCount = new long[RECENT];
    private final int[] recentRoot = new int[RECENT];
    private final boolean[] recentInPlace = new boolean[RECENT];
    private final int[] recentElementBytes = new int[RECENT];
    private final Algorithm[] recentAlgorithm = new Algorithm[RECENT];
    private final long[] recentChunk = new long[RECENT];
    private final Plan[] recentPlan = new Plan[RECENT];
    private int recentNext;

    Plan get(OpKind kind, long count, int root, boolean inPlace, int elementBytes, Algorithm algorithm,
             long chunkBytes) {
        for (int i = 0; i < RECENT; i++) {
            if (recentPlan[i] != null && recentKind[i] == kind && recentCount[i] == count && recentRoot[i] == root
                    && recentInPlace[i] == inPlace && recentElementBytes[i] == elementBytes
                    && recentAlgorithm[i] == algorithm && recentChunk[i] == chunkBytes) {
                return recentPlan[i];
            }
        }
        Plan p = plans.get(new Key(kind, count, root, inPlace, elementBytes, algorithm, chunkBytes));
        if (p != null) {
            remember(kind, count, root, inPlace, elementBytes, algorithm, chunkBytes, p);
        }
        return p;
    }

    void put(OpKind kind, long count, int root, boolean inPlace, int elementBytes, Algorithm algorithm,
             long chunkBytes, Plan plan) {
        plans.put(new Key(kind, count, root, inPlace, elementBytes, algorithm, chunkBytes), plan);
        remember(kind, count, root, inPlace, elementBytes, algorithm, chunkBytes, plan);
    }

    private void remember(OpKind kind, long count, int root, boolean inPlace, int elementBytes, Algorithm algorithm,
                          long chunkBytes, Plan plan) {
        int i = recentNext;
        recentNext = (recentNext + 1) % RECENT;
        recentKind[i] = kind;
        recentCount[i] = count;
        recentRoot[i] = root;
        recentInPlace[i] = inPlace;
        recentElementBytes[i] = elementBytes;
        recentAlgorithm[i] = algorithm;
        recentChunk[i] = chunkBytes;
        recentPlan[i] = plan;
    }
}
