/**
 * The {@code metaroce} transport plugin for the collectives ({@link io.jccl.net.NetTransportProvider}): MetaRoCE
 * over UDP between processes, configured by {@code JCCL_METAROCE_*} options (see {@code MetaRoceOptions}).
 */
package io.jccl.metaroce.net;
