package io.jccl.core;

import java.util.List;

/**
 * The executor's handling of device buffers (see {@link DeviceArgs}): staged through host memory when the operation
 * runs, inputs in before its plan, outputs back before its futures complete.
 */
final class DeviceStaging {
    private DeviceStaging() {
    }

    /** @return whether {@code op} (or, for a group, any member) has device buffers */
    static boolean hasDeviceBuffers(OpRequest op) {
        if (op.type == OpRequest.Type.GROUP) {
            for (OpRequest m : op.members) {
                if (m.device != null) {
                    return true;
                }
            }
            return false;
        }
        return op.device != null;
    }

    /** Copies device inputs into host staging before the plan runs (a failure breaks the communicator). */
    static void stageIn(OpRequest op, int rank) {
        stage(op, rank, true);
    }

    /** Copies outputs back into device memory, before the futures complete. */
    static void stageOut(OpRequest op, int rank) {
        stage(op, rank, false);
    }

    /** Stages the device buffers of the operation, or of each member of a group that has any, in or out. */
    private static void stage(OpRequest op, int rank, boolean in) {
        if (op.type == OpRequest.Type.GROUP) {
            for (OpRequest m : op.members) {
                if (m.device != null) {
                    stage(m.device, rank, in);
                }
            }
        } else {
            stage(op.device, rank, in);
        }
    }

    private static void stage(DeviceArgs device, int rank, boolean in) {
        if (in) {
            device.stageIn(rank);
        } else {
            device.stageOut(rank);
        }
    }

    /** Returns every staging lease (again: a no-op), whatever happened; the operation's outcome is decided. */
    static void releaseStaging(OpRequest op, int rank) {
        for (OpRequest m : op.type == OpRequest.Type.GROUP ? op.members : List.of(op)) {
            if (m.device != null) {
                try {
                    m.device.release();
                } catch (RuntimeException e) {
                    CommExecutor.LOG.warn("rank {}: returning host staging of {} failed", rank, m.describe(), e);
                }
            }
        }
    }
}
