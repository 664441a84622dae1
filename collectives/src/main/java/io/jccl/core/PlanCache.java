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

    // The last lookup, checked first without building a key.
    private OpKind lastKind;
    private long lastCount;
    private int lastRoot;
    private boolean lastInPlace;
    private int lastElementBytes;
    private Algorithm lastAlgorithm;
    private long lastChunk;
    private Plan lastPlan;

    Plan get(OpKind kind, long count, int root, boolean inPlace, int elementBytes, Algorithm algorithm,
             long chunkBytes) {
        if (lastPlan != null && kind == lastKind && count == lastCount && root == lastRoot && inPlace == lastInPlace
                && elementBytes == lastElementBytes && algorithm == lastAlgorithm && chunkBytes == lastChunk) {
            return lastPlan;
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
        lastKind = kind;
        lastCount = count;
        lastRoot = root;
        lastInPlace = inPlace;
        lastElementBytes = elementBytes;
        lastAlgorithm = algorithm;
        lastChunk = chunkBytes;
        lastPlan = plan;
    }
}
