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
        if (op.type == OpRequest.Type.GROUP) {
            for (OpRequest m : op.members) {
                if (m.device != null) {
                    m.device.stageIn(rank);
                }
            }
        } else {
            op.device.stageIn(rank);
        }
    }

    /** Copies outputs back into device memory, before the futures complete. */
    static void stageOut(OpRequest op, int rank) {
        if (op.type == OpRequest.Type.GROUP) {
            for (OpRequest m : op.members) {
                if (m.device != null) {
                    m.device.stageOut(rank);
                }
            }
        } else {
            op.device.stageOut(rank);
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
