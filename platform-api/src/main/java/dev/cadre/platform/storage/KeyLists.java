package dev.cadre.platform.storage;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * Placeholders for deleting a batch of rows by their keys in one statement ({@code WHERE (a, b) IN
 * ((?, ?), …)} works on PostgreSQL and H2 alike), so retention deletes a batch with one round trip
 * and only the rows it chose (and checked) before.
 */
public final class KeyLists {

    private KeyLists() {}

    /** {@code n} groups of {@code columns} placeholders: {@code (?, ?), (?, ?)}; for one column {@code ?, ?}. */
    public static String placeholders(int columns, int n) {
        String one = columns == 1 ? "?" : "(" + String.join(", ", Collections.nCopies(columns, "?")) + ")";
        return String.join(", ", Collections.nCopies(n, one));
    }

    /** The keys' values in placeholder order. */
    public static List<Object> flatten(Collection<? extends List<?>> keys) {
        List<Object> out = new ArrayList<>();
        keys.forEach(out::addAll);
        return out;
    }
}
