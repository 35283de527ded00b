package dev.cadre.memory;

/** The contract on the in-memory backend. */
class InMemorySharedMemoryTest extends SharedMemoryContract {

    @Override
    protected SharedMemory create(MemoryOptions options) {
        return new InMemorySharedMemory(options);
    }
}
