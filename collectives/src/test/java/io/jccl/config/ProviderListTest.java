package io.jccl.config;

import io.jccl.net.NetTransportProvider;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProviderListTest {
    private static final ClassLoader LOADER = ProviderListTest.class.getClassLoader();

    @Test
    void everyProviderComesHighestPriorityFirstAndTiesByName() {
        List<NetTransportProvider> sorted = ProviderList.load(NetTransportProvider.class, LOADER,
                NetTransportProvider::priority, NetTransportProvider::name);
        List<String> onClassPath = ServiceLoader.load(NetTransportProvider.class, LOADER).stream()
                .map(p -> p.get().name()).sorted().toList();
        assertEquals(onClassPath, sorted.stream().map(NetTransportProvider::name).sorted().toList());
        for (int i = 1; i < sorted.size(); i++) {
            NetTransportProvider before = sorted.get(i - 1);
            NetTransportProvider after = sorted.get(i);
            assertTrue(before.priority() > after.priority() || before.priority() == after.priority()
                    && before.name().compareTo(after.name()) < 0, before.name() + " before " + after.name());
        }
        assertEquals("local", sorted.getFirst().name(), "the in-JVM transport has the highest priority");
    }

    @Test
    void equalPrioritiesComeInTheOrderOfTheirNames() {
        List<NetTransportProvider> byNameOnly = ProviderList.load(NetTransportProvider.class, LOADER, p -> 0,
                NetTransportProvider::name);
        List<String> names = byNameOnly.stream().map(NetTransportProvider::name).toList();
        assertEquals(names.stream().sorted().toList(), names);
    }

    @Test
    void aServiceWithoutProvidersGivesAnEmptyListThatCannotChange() {
        List<Runnable> none = ProviderList.load(Runnable.class, LOADER, r -> 0, Object::toString);
        assertTrue(none.isEmpty());
        assertThrows(UnsupportedOperationException.class, () -> none.add(() -> { }));
    }
}
