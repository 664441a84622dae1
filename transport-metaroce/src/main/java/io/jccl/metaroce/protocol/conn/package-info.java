/**
 * Connections: many ordered streams above, many logical paths below. Posted WRITEs and SENDs are cut into
 * chunks of one packet each; chunks are sprayed over the paths; the receiver places every chunk where its
 * header says, de-duplicates by chunk, and completes messages per stream in order.
 */
package io.jccl.metaroce.protocol.conn;
