package dev.cadre.agent.telemetry;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;

/**
 * Redacts a text that arrives in pieces (one model turn streamed), with {@link SecretMasker}'s
 * patterns, so that a secret split across pieces ({@code postgres://app:Hun} + {@code ter2pw@db})
 * never gets out: each piece lets out the redacted text up to where a secret could still be
 * starting, and holds back the rest until more text decides it; {@link #flush()} at the end of the
 * turn lets out what is left. Everything let out, concatenated, is what {@link
 * SecretMasker#redactText} makes of the whole text.
 *
 * <p>Only a tail that could still match is held: for each pattern, the earliest position where an
 * attempt to match reached the end of the text so far (the regex engine's {@code hitEnd}). Plain
 * prose goes out as it comes; {@code pass}, {@code bearer }, {@code sk-} or {@code eyJ} wait for the
 * next piece; a URL is held from the colon after its user; a PEM private key until its END line. A
 * text that starts like JSON ({@code {} or {@code [}) is redacted as JSON when whole, so it is held
 * until the flush. Not thread-safe: one per streamed turn.
 */
public final class StreamingRedactor {

    /** How much already let-out text is given as context to the next piece (\b, look-behinds, a URL's prefix). */
    private static final int CONTEXT = 512;

    private final SecretMasker masker;
    private final StringBuilder held = new StringBuilder();
    /** The text let out before {@link #held}, raw; its tail is the context of what follows. */
    private final StringBuilder before = new StringBuilder();

    private boolean json;

    StreamingRedactor(SecretMasker masker) {
        this.masker = masker;
    }

    /** Takes the next piece; returns the redacted text that may be shown now (often all of it, maybe none). */
    public String accept(String piece) {
        held.append(piece);
        if (json || isBlank(held) && before.isEmpty()) {
            // Leading blanks stay with what follows: a text whose first character is { or [ is JSON.
            return "";
        }
        if (before.isEmpty() && startsLikeJson(held)) {
            json = true;
            return "";
        }
        String context = context();
        String text = context + held;
        int cut = safeCut(text, context.length()) - context.length();
        if (cut <= 0) {
            return "";
        }
        String out = redactAfter(context, held.substring(0, cut));
        before.append(held, 0, cut);
        held.delete(0, cut);
        if (before.length() > 4 * CONTEXT) {
            before.delete(0, before.length() - CONTEXT);
        }
        return out;
    }

    /** The end of the text: returns the redacted rest, and starts over for a next text. */
    public String flush() {
        String rest = held.toString();
        String out;
        if (rest.isEmpty()) {
            out = "";
        } else if (json || before.isEmpty()) {
            // The whole text is here: exactly what redactText makes of it (JSON or not).
            String whole = masker.redactText(rest);
            out = whole == null ? "" : whole;
        } else {
            out = redactAfter(context(), rest);
        }
        held.setLength(0);
        before.setLength(0);
        json = false;
        return out;
    }

    /** The raw text let out just before the held tail, back to a blank (at most {@link #CONTEXT} characters). */
    private String context() {
        int end = before.length();
        int start = Math.max(0, end - CONTEXT);
        for (int i = end - 1; i >= start; i--) {
            if (Character.isWhitespace(before.charAt(i))) {
                return before.substring(i, end);
            }
        }
        return before.substring(start, end);
    }

    /** {@code segment} redacted as it stands after {@code context} (already let out) in the whole text. */
    private String redactAfter(String context, String segment) {
        if (context.isEmpty()) {
            return masker.maskPatterns(segment);
        }
        String both = masker.maskPatterns(context + segment);
        // The cut was chosen so that no mask reaches back into the context; should one, the segment
        // is redacted alone rather than showing the context again.
        return both.startsWith(context) ? both.substring(context.length()) : masker.maskPatterns(segment);
    }

    /**
     * The position in {@code text} up to which the redaction is decided whatever follows: before the
     * earliest start of a match attempt that reached the end of the text, and outside any match.
     * Positions before {@code from} are the context, let out already.
     */
    private int safeCut(String text, int from) {
        int cut = text.length();
        List<int[]> matches = new ArrayList<>();
        for (SecretMasker.Replacement r : masker.replacements()) {
            Matcher m = r.pattern().matcher(text);
            m.useTransparentBounds(true).useAnchoringBounds(false);
            int searchFrom = 0;
            int pending = text.length();
            boolean found = false;
            while (m.find()) {
                if (m.hitEnd()) {
                    // The match could still grow, or an earlier attempt since searchFrom could match.
                    pending = Math.min(searchFrom, m.start());
                    found = true;
                    break;
                }
                if (m.start() < cut) {
                    matches.add(new int[] {m.start(), m.end()});
                }
                searchFrom = m.end();
            }
            if (!found && m.hitEnd()) {
                // Some attempt after the last match reached the end: find the earliest that did.
                for (int s = searchFrom; s < Math.min(cut, text.length()); s++) {
                    m.region(s, text.length());
                    if (m.lookingAt() || m.hitEnd()) {
                        pending = s;
                        break;
                    }
                }
            }
            if (pending < cut && r.keepsUrlPrefix()) {
                pending = urlMaskStart(text, pending);
            }
            cut = Math.min(cut, pending);
        }
        // Never inside a match: its replacement needs all of it.
        for (boolean moved = true; moved; ) {
            moved = false;
            for (int[] m : matches) {
                if (m[0] < cut && cut <= m[1]) {
                    cut = m[0];
                    moved = true;
                }
            }
        }
        return Math.max(cut, from);
    }

    /**
     * Where a URL's mask would start: the colon after {@code scheme://user}, which the replacement
     * keeps (the scheme and user may be shown before the password arrives); the first colon while
     * {@code ://} is not complete yet.
     */
    private static int urlMaskStart(String text, int start) {
        int scheme = text.indexOf("://", start);
        int colon = scheme < 0 ? text.indexOf(':', start) : text.indexOf(':', scheme + 3);
        return colon < 0 ? text.length() : colon;
    }

    private static boolean isBlank(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isWhitespace(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean startsLikeJson(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Character.isWhitespace(c)) {
                return c == '{' || c == '[';
            }
        }
        return false;
    }
}
