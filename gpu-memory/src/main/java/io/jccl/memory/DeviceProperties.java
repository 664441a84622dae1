package io.jccl.memory;

/**
 * What a domain says about one of its devices.
 *
 * @param device           the device index
 * @param name             the device's name (e.g. "AMD Instinct MI300X"; "host" for host memory)
 * @param totalMemoryBytes its memory in bytes
 */
public record DeviceProperties(int device, String name, long totalMemoryBytes) {
}
