package dev.cadre.memory;

/** A live subscription to changes; closing it stops delivery. */
public interface Subscription extends AutoCloseable {

    /** The cursor of the last change delivered to the consumer (the one to resume after). */
    long cursor();

    @Override
    void close();
}
