/**
 * Plans: what one rank does for one operation, as a list of primitive steps per lane, with buffer
 * references by role (the user's send and receive buffers) so a plan can be cached and reused across calls.
 * Also the 64-bit fingerprint tags that let ranks detect calls that do not match.
 */
package io.jccl.plan;
