package dev.cadre.agent.workflow;

/**
 * Finds the bracket closing a JSON value inside text, on a budget: text full of brackets that never
 * close would otherwise be scanned to its end once per bracket (quadratic). Once the budget — a few
 * times the text's length — is spent, no more JSON is looked for and the rest stays text.
 */
final class BracketScan {

    private long remaining;

    BracketScan(String text) {
        this.remaining = 8L * text.length() + 10_000;
    }

    /** Shares the budget of the text the JSON was found in: nested strings draw on the same budget. */
    boolean spent() {
        return remaining <= 0;
    }

    /** The index of the bracket closing the one at {@code start}, honouring JSON strings; -1 if none. */
    int matching(String text, int start) {
        int depth = 0;
        boolean inString = false;
        for (int i = start; i < text.length(); i++) {
            if (--remaining < 0) {
                return -1;
            }
            char c = text.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
        }
        return -1;
    }
}
