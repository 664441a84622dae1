/**
 * Memory domains (host, CUDA, ROCm HIP) that collectives and transports can use; built in a later issue.
 */
package io.jccl.memory;
