package dev.cadre.agent.workflow;

import java.util.ArrayList;
import java.util.List;

/** Programmatic splitting of a long mission into bounded chunks (seed 000's {@code splitTasks}). */
public final class Missions {

    private Missions() {}

    /**
     * Packs the mission's non-blank lines into chunks of at most {@code maxChars} characters (lines
     * joined by newlines), keeping line order; a line longer than that is cut at spaces where
     * possible, otherwise hard.
     */
    public static List<String> split(String mission, int maxChars) {
        if (maxChars < 1) {
            throw new IllegalArgumentException("maxChars must be positive");
        }
        List<String> pieces = new ArrayList<>();
        for (String line : mission.split("\\R")) {
            String l = line.strip();
            while (l.length() > maxChars) {
                int cut = l.lastIndexOf(' ', maxChars);
                if (cut <= 0) {
                    cut = maxChars;
                }
                pieces.add(l.substring(0, cut).strip());
                l = l.substring(cut).strip();
            }
            if (!l.isEmpty()) {
                pieces.add(l);
            }
        }
        List<String> chunks = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String piece : pieces) {
            if (!current.isEmpty() && current.length() + 1 + piece.length() > maxChars) {
                chunks.add(current.toString());
                current.setLength(0);
            }
            if (!current.isEmpty()) {
                current.append('\n');
            }
            current.append(piece);
        }
        if (!current.isEmpty()) {
            chunks.add(current.toString());
        }
        return chunks;
    }
}
