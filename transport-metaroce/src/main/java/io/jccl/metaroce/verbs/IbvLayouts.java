package io.jccl.metaroce.verbs;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The libibverbs structs {@link Ibverbs} reads, as FFM layouts for LP64 Linux (x86_64, aarch64), written from
 * rdma-core's {@code <infiniband/verbs.h>}. These structs are part of libibverbs' stable ABI ({@code IBVERBS_1.1});
 * {@code IbvLayoutsTest} pins every offset read here, and checks them against the installed header where a C
 * compiler and {@code libibverbs-dev} are present.
 *
 * <p>Only the fields JCCL reads are named; the rest are padding of the right size, so a layout's size is the C
 * struct's.
 */
final class IbvLayouts {
    /** {@code IBV_SYSFS_NAME_MAX}: the size of a device's {@code name} and {@code dev_name}. */
    static final int SYSFS_NAME_MAX = 64;
    /** {@code IBV_SYSFS_PATH_MAX}: the size of a device's {@code dev_path} and {@code ibdev_path}. */
    static final int SYSFS_PATH_MAX = 256;
    /** The size of {@code ibv_device_attr.fw_ver}. */
    static final int FW_VER_MAX = 64;

    /** {@code enum ibv_port_state}, by value. */
    static final String[] PORT_STATE_NAMES = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    /** {@code enum ibv_transport_type}, by value. */
    static final String[] TRANSPORT_NAMES = {"InfiniBand", "iWARP", "usNIC", "usNIC UDP", "unspecified"};
    /** {@code IBV_LINK_LAYER_*}, by value. */
    static final String[] LINK_LAYER_NAMES = {"unspecified", "InfiniBand", "Ethernet"};

    /**
     * {@code struct ibv_device} (664 bytes): two function pointers ({@code _ops}), then the node and transport type
     * enums, then fixed-size name and path arrays.
     */
    static final StructLayout IBV_DEVICE = MemoryLayout.structLayout(
            ADDRESS.withName("_ops_alloc_context"),
            ADDRESS.withName("_ops_free_context"),
            JAVA_INT.withName("node_type"),
            JAVA_INT.withName("transport_type"),
            MemoryLayout.sequenceLayout(SYSFS_NAME_MAX, JAVA_BYTE).withName("name"),
            MemoryLayout.sequenceLayout(SYSFS_NAME_MAX, JAVA_BYTE).withName("dev_name"),
            MemoryLayout.sequenceLayout(SYSFS_PATH_MAX, JAVA_BYTE).withName("dev_path"),
            MemoryLayout.sequenceLayout(SYSFS_PATH_MAX, JAVA_BYTE).withName("ibdev_path"));

    /**
     * {@code struct ibv_device_attr} (232 bytes): the firmware string, GUIDs and sizes, the vendor ids, then 28
     * {@code int} limits, {@code max_pkeys} ({@code uint16_t}), {@code local_ca_ack_delay} and
     * {@code phys_port_cnt} ({@code uint8_t}), padded to 8.
     */
    static final StructLayout IBV_DEVICE_ATTR = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(FW_VER_MAX, JAVA_BYTE).withName("fw_ver"),
            JAVA_LONG.withName("node_guid"),
            JAVA_LONG.withName("sys_image_guid"),
            JAVA_LONG.withName("max_mr_size"),
            JAVA_LONG.withName("page_size_cap"),
            JAVA_INT.withName("vendor_id"),
            JAVA_INT.withName("vendor_part_id"),
            JAVA_INT.withName("hw_ver"),
            JAVA_INT.withName("max_qp"),
            JAVA_INT.withName("max_qp_wr"),
            JAVA_INT.withName("device_cap_flags"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("max_sge_rd"),
            JAVA_INT.withName("max_cq"),
            JAVA_INT.withName("max_cqe"),
            JAVA_INT.withName("max_mr"),
            JAVA_INT.withName("max_pd"),
            // max_qp_rd_atom .. max_srq_sge: 20 ints JCCL does not read.
            MemoryLayout.paddingLayout(20 * Integer.BYTES),
            JAVA_SHORT.withName("max_pkeys"),
            JAVA_BYTE.withName("local_ca_ack_delay"),
            JAVA_BYTE.withName("phys_port_cnt"),
            MemoryLayout.paddingLayout(4));

    /**
     * {@code struct ibv_port_attr} as rdma-core 44 (Debian 12) has it: up to {@code port_cap_flags2}, padded to 52
     * bytes. Later releases append {@code active_speed_ex} (56 bytes); the fields before it stay where they are.
     * The exported {@code ibv_query_port} writes the whole struct of the installed release, so the buffer passed to
     * it is {@link #PORT_ATTR_BUFFER_BYTES}, not this layout's size.
     */
    static final StructLayout IBV_PORT_ATTR = MemoryLayout.structLayout(
            JAVA_INT.withName("state"),
            JAVA_INT.withName("max_mtu"),
            JAVA_INT.withName("active_mtu"),
            JAVA_INT.withName("gid_tbl_len"),
            JAVA_INT.withName("port_cap_flags"),
            JAVA_INT.withName("max_msg_sz"),
            JAVA_INT.withName("bad_pkey_cntr"),
            JAVA_INT.withName("qkey_viol_cntr"),
            JAVA_SHORT.withName("pkey_tbl_len"),
            JAVA_SHORT.withName("lid"),
            JAVA_SHORT.withName("sm_lid"),
            JAVA_BYTE.withName("lmc"),
            JAVA_BYTE.withName("max_vl_num"),
            JAVA_BYTE.withName("sm_sl"),
            JAVA_BYTE.withName("subnet_timeout"),
            JAVA_BYTE.withName("init_type_reply"),
            JAVA_BYTE.withName("active_width"),
            JAVA_BYTE.withName("active_speed"),
            JAVA_BYTE.withName("phys_state"),
            JAVA_BYTE.withName("link_layer"),
            JAVA_BYTE.withName("flags"),
            JAVA_SHORT.withName("port_cap_flags2"),
            MemoryLayout.paddingLayout(2));

    /**
     * What is allocated (zeroed) for one {@code ibv_query_port}: room for this struct in any rdma-core release to come
     * (it has grown by appending fields), so a newer library never writes past the buffer.
     */
    static final long PORT_ATTR_BUFFER_BYTES = 256;

    static final long DEVICE_NODE_TYPE = IBV_DEVICE.byteOffset(groupElement("node_type"));
    static final long DEVICE_TRANSPORT_TYPE = IBV_DEVICE.byteOffset(groupElement("transport_type"));
    static final long DEVICE_NAME = IBV_DEVICE.byteOffset(groupElement("name"));

    static final long ATTR_FW_VER = IBV_DEVICE_ATTR.byteOffset(groupElement("fw_ver"));
    static final long ATTR_NODE_GUID = IBV_DEVICE_ATTR.byteOffset(groupElement("node_guid"));
    static final long ATTR_VENDOR_ID = IBV_DEVICE_ATTR.byteOffset(groupElement("vendor_id"));
    static final long ATTR_VENDOR_PART_ID = IBV_DEVICE_ATTR.byteOffset(groupElement("vendor_part_id"));
    static final long ATTR_HW_VER = IBV_DEVICE_ATTR.byteOffset(groupElement("hw_ver"));
    static final long ATTR_MAX_QP = IBV_DEVICE_ATTR.byteOffset(groupElement("max_qp"));
    static final long ATTR_MAX_CQ = IBV_DEVICE_ATTR.byteOffset(groupElement("max_cq"));
    static final long ATTR_MAX_MR = IBV_DEVICE_ATTR.byteOffset(groupElement("max_mr"));
    static final long ATTR_PHYS_PORT_CNT = IBV_DEVICE_ATTR.byteOffset(groupElement("phys_port_cnt"));

    static final long PORT_STATE = IBV_PORT_ATTR.byteOffset(groupElement("state"));
    static final long PORT_ACTIVE_MTU = IBV_PORT_ATTR.byteOffset(groupElement("active_mtu"));
    static final long PORT_LINK_LAYER = IBV_PORT_ATTR.byteOffset(groupElement("link_layer"));

    private IbvLayouts() {
    }

    /**
     * @param value   a value of a C enum numbered from 0
     * @param names   the enum's words, by value
     * @param unknown the word for a value {@code names} does not have, followed by the value in parentheses
     * @return the value as a word
     */
    static String enumName(int value, String[] names, String unknown) {
        return value >= 0 && value < names.length ? names[value] : unknown + "(" + value + ")";
    }
}
