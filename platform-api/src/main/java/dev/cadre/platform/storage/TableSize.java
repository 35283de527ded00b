package dev.cadre.platform.storage;

import java.util.OptionalLong;
import java.util.function.LongSupplier;
import org.springframework.dao.DataAccessException;

/**
 * A table's size on disk as its owner measures it ({@link PostgresSizes#TOTAL_BYTES}). Where the
 * database cannot tell (H2 has no size functions) the first failed measurement is remembered, so
 * the storage statistics do not retry a failing query on every request.
 */
public final class TableSize {

    private final LongSupplier measure;
    private volatile boolean unknown;

    /** {@code measure} runs the owner's size query. */
    public TableSize(LongSupplier measure) {
        this.measure = measure;
    }

    /** Bytes of the table with its indexes, TOAST and partitions; empty where the database cannot tell. */
    public OptionalLong bytes() {
        if (unknown) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(measure.getAsLong());
        } catch (DataAccessException e) {
            unknown = true;
            return OptionalLong.empty();
        }
    }

    /**
     * Runs {@code work} where the database can tell sizes (PostgreSQL), e.g. the owner's VACUUM after
     * retention removed rows; nothing where it cannot (H2, which has neither sizes nor VACUUM).
     */
    public void whereMeasurable(Runnable work) {
        if (bytes().isPresent()) {
            work.run();
        }
    }
}
