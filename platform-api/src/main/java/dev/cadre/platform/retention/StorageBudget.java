package dev.cadre.platform.retention;

import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.util.unit.DataSize;

/**
 * The operator's storage budget for the run history ({@code cadre.retention.budget}): the bytes on
 * disk that runs, their events, spans, tool journal and approvals may take together (PostgreSQL's
 * {@code pg_total_relation_size}, indexes and TOAST included). Retention enforces it on top of the
 * age limits by removing the oldest removable data first; see {@link BudgetControl}.
 *
 * @param bytes the budget; {@link #NONE} (0) when the operator set none
 */
public record StorageBudget(long bytes) {

    /** No budget: only the age limits apply. */
    public static final StorageBudget NONE = new StorageBudget(0);

    static final String PROPERTY = "cadre.retention.budget";

    /** Below this a budget cannot hold a handful of runs with their events; a typo rather than a wish. */
    static final long MIN_BYTES = 1024L * 1024;

    public StorageBudget {
        if (bytes != 0 && bytes < MIN_BYTES) {
            throw new IllegalArgumentException(
                    PROPERTY + " must be at least 1MB (or unset for none), was " + bytes + " bytes");
        }
    }

    public boolean enabled() {
        return bytes > 0;
    }

    /**
     * Parses the property: empty or {@code none} for no budget, else a size such as {@code 20GB},
     * {@code 500MB} or {@code 1TB} (binary units: 1GB = 1024 MB); anything else is a start-up error
     * naming the property.
     */
    public static StorageBudget parse(@Nullable String value) {
        if (value == null
                || value.isBlank()
                || value.strip().toLowerCase(Locale.ROOT).equals("none")) {
            return NONE;
        }
        DataSize size;
        try {
            size = DataSize.parse(value.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(PROPERTY + " must be a size such as 20GB, 500MB or 1TB (or empty for"
                    + " no budget), was '" + value + "'");
        }
        if (size.toBytes() <= 0) {
            throw new IllegalArgumentException(
                    PROPERTY + " must be a positive size such as 20GB (or empty for no budget), was '" + value + "'");
        }
        return new StorageBudget(size.toBytes());
    }

    /** Human form for the storage view: {@code 20GB}, {@code 512MB}, {@code 1536KB}. */
    public String display() {
        if (bytes == 0) {
            return "none";
        }
        for (String[] unit : new String[][] {{"TB", "40"}, {"GB", "30"}, {"MB", "20"}, {"KB", "10"}}) {
            long div = 1L << Integer.parseInt(unit[1]);
            if (bytes % div == 0) {
                return (bytes / div) + unit[0];
            }
        }
        return bytes + "B";
    }
}
