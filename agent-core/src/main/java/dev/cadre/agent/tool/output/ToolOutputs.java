package dev.cadre.agent.tool.output;

import dev.cadre.agent.telemetry.Redactor;
import dev.cadre.agent.tool.ToolContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Applies the tool output budget: a result over its cap reaches the model as head + tail with a line
 * saying what was cut and the handle it is kept under; the full output, bounded to {@link
 * ToolOutputBudget#maxStoredBytes} and redacted once, goes to the {@link ToolOutputStore} in chunks of
 * whole lines. Also reads pages back for {@code tool_output_read} and the REST API.
 */
public final class ToolOutputs {

    /** The built-in tool that pages through kept outputs. */
    public static final String READ_TOOL = "tool_output_read";

    /** Longer lines are kept wrapped at this many chars, so every page is bounded. */
    public static final int MAX_LINE_CHARS = 4096;

    /** The most lines one page may ask for. */
    public static final int MAX_PAGE_LINES = 1000;

    // The line the model reads in place of the middle starts with this (and tells a capped result apart).
    static final String CUT_MARKER = "[cadre: output cut:";
    // Room kept for the cut line: its fixed words, three numbers of up to 19 digits and a 20-char handle.
    private static final int MARKER_RESERVE = 400;
    private static final int CHUNK_CHARS = 64 * 1024;
    private static final int CHUNKS_PER_READ = 4;

    private final ToolOutputStore store;
    private final ToolOutputBudget budget;
    private final Redactor redactor;

    /**
     * @param redactor applied once to each kept output before it is stored (e.g. {@code SecretMasker})
     */
    public ToolOutputs(ToolOutputStore store, ToolOutputBudget budget, Redactor redactor) {
        this.store = Objects.requireNonNull(store, "store");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.redactor = Objects.requireNonNull(redactor, "redactor");
    }

    /** An in-memory store, the default budget and credential masking. */
    public static ToolOutputs inMemory() {
        return new ToolOutputs(new InMemoryToolOutputStore(), ToolOutputBudget.DEFAULT, Redactor.credentials());
    }

    /** The budget applied. */
    public ToolOutputBudget budget() {
        return budget;
    }

    /** The store outputs are kept in. */
    public ToolOutputStore store() {
        return store;
    }

    /**
     * What the model reads of a result.
     *
     * @param content the text delivered
     * @param originalBytes UTF-8 bytes the tool returned
     * @param deliveredBytes UTF-8 bytes of {@code content}
     * @param handle where the full output is kept, or null when it was delivered whole
     */
    public record Delivered(
            String content,
            long originalBytes,
            long deliveredBytes,
            @Nullable String handle) {}

    /** A result delivered whole, as measured. */
    public static Delivered whole(String output) {
        long bytes = utf8Length(output, 0, output.length());
        return new Delivered(output, bytes, bytes, null);
    }

    /** Whether a result's text is a capped one (it holds the cut line). */
    public static boolean isCapped(String content) {
        return content.contains(CUT_MARKER);
    }

    /**
     * Delivers a tool's result within {@code cap} bytes; over the cap it is kept in full (bounded and
     * redacted) and the model reads head + tail and the cut line.
     */
    public Delivered deliver(ToolContext call, String tool, String output, int cap) {
        long original = utf8Length(output, 0, output.length());
        if (original <= cap) {
            return new Delivered(output, original, original, null);
        }
        @Nullable String handle = handle(call);
        long storedLines;
        try {
            storedLines = keep(call, tool, handle, output, original);
        } catch (RuntimeException e) {
            // The store failing must not cost the call its result: the model still reads head and tail.
            handle = null;
            storedLines = -1;
        }
        int half = (cap - MARKER_RESERVE) / 2;
        int headEnd = snapHeadEnd(output, prefixChars(output, half));
        int tailStart = snapTailStart(output, suffixStart(output, half));
        long headBytes = utf8Length(output, 0, headEnd);
        long tailBytes = utf8Length(output, tailStart, output.length());
        long headLines = lines(output, 0, headEnd);
        StringBuilder text = new StringBuilder(headEnd + MARKER_RESERVE + (output.length() - tailStart));
        text.append(output, 0, headEnd);
        if (headEnd > 0 && output.charAt(headEnd - 1) != '\n') {
            text.append('\n');
        }
        text.append(CUT_MARKER)
                .append(" the tool returned ")
                .append(original)
                .append(" bytes; ")
                .append(original - headBytes - tailBytes)
                .append(" bytes of the middle are omitted here, from line ")
                .append(headLines);
        if (handle == null) {
            text.append(". The full output could not be kept.]\n");
        } else {
            text.append(" of ")
                    .append(storedLines)
                    .append(" kept. Read them: ")
                    .append(READ_TOOL)
                    .append(" {\"handle\":\"")
                    .append(handle)
                    .append("\",\"offset\":")
                    .append(headLines)
                    .append("} (add \"grep\" to search)]\n");
        }
        text.append(output, tailStart, output.length());
        String content = text.toString();
        return new Delivered(content, original, utf8Length(content, 0, content.length()), handle);
    }

    /** Characters redacted in one call: well under a redactor's own per-call cap (1 Mi by default). */
    static final int REDACTION_SEGMENT = 64 * 1024;

    /**
     * Redacts a kept output a segment of whole lines at a time. A redactor caps what one call reads
     * (SecretMasker cuts longer texts, so nothing past the cap leaves in clear); a kept output may be
     * 8 MiB, all of which must be kept and masked. Segments end at a line end outside a PEM block, so
     * a key is masked whole, from its BEGIN line on.
     */
    private String redactInSegments(String tool, String text) {
        if (text.length() <= REDACTION_SEGMENT) {
            return redactor.redact(tool, text);
        }
        StringBuilder out = new StringBuilder(text.length());
        int start = 0;
        int lineStart = 0;
        boolean inPem = false;
        while (lineStart < text.length()) {
            int nl = text.indexOf('\n', lineStart);
            int lineEnd = nl < 0 ? text.length() : nl + 1;
            if (text.startsWith("-----BEGIN ", lineStart)) {
                inPem = true;
            } else if (text.startsWith("-----END ", lineStart)) {
                inPem = false;
            }
            if (!inPem && lineEnd - start >= REDACTION_SEGMENT) {
                out.append(redactor.redact(tool, text.substring(start, lineEnd)));
                start = lineEnd;
            }
            lineStart = lineEnd;
        }
        if (start < text.length()) {
            out.append(redactor.redact(tool, text.substring(start)));
        }
        return out.toString();
    }

    /** Bounds, redacts once, chunks and stores the full output; returns the lines kept. */
    private long keep(ToolContext call, String tool, String handle, String output, long original) {
        String bounded = output;
        boolean truncated = false;
        if (original > budget.maxStoredBytes()) {
            int half = budget.maxStoredBytes() / 2 - MARKER_RESERVE;
            int headEnd = prefixChars(output, half);
            int tailStart = suffixStart(output, half);
            long dropped = original - utf8Length(output, 0, headEnd) - utf8Length(output, tailStart, output.length());
            bounded = output.substring(0, headEnd)
                    + "\n[cadre: " + dropped + " bytes of the middle were not kept: the output was " + original
                    + " bytes, at most " + budget.maxStoredBytes() + " are kept]\n"
                    + output.substring(tailStart);
            truncated = true;
        }
        String redacted = redactInSegments(tool, bounded);
        if (redacted.indexOf('\u0000') >= 0) {
            // A database text column (PostgreSQL's) cannot hold NUL; every store keeps the same text.
            redacted = redacted.replace('\u0000', '\uFFFD');
        }
        List<ToolOutputChunk> chunks = chunk(redacted);
        long lines = 0;
        long bytes = 0;
        for (ToolOutputChunk c : chunks) {
            lines += c.lineCount();
            bytes += utf8Length(c.text(), 0, c.text().length());
        }
        store.save(
                new ToolOutputInfo(
                        call.runId(), handle, call.sessionId(), call.callId(), tool, original, bytes, lines, truncated),
                chunks);
        return lines;
    }

    /** Whole lines, wrapped at {@link #MAX_LINE_CHARS}, each ending in a newline, about 64K chars a chunk. */
    static List<ToolOutputChunk> chunk(String text) {
        List<ToolOutputChunk> chunks = new ArrayList<>();
        StringBuilder current = new StringBuilder(Math.min(text.length(), CHUNK_CHARS) + MAX_LINE_CHARS + 1);
        long firstLine = 0;
        int count = 0;
        int pos = 0;
        int n = text.length();
        while (pos < n) {
            int nl = text.indexOf('\n', pos);
            int lineEnd = nl < 0 ? n : nl;
            int end = Math.min(lineEnd, pos + MAX_LINE_CHARS);
            if (end < lineEnd && end > pos && Character.isHighSurrogate(text.charAt(end - 1))) {
                end--;
            }
            current.append(text, pos, end).append('\n');
            count++;
            pos = end == lineEnd ? lineEnd + 1 : end;
            if (current.length() >= CHUNK_CHARS) {
                chunks.add(new ToolOutputChunk(chunks.size(), firstLine, count, current.toString()));
                firstLine += count;
                count = 0;
                current.setLength(0);
            }
        }
        if (count > 0) {
            chunks.add(new ToolOutputChunk(chunks.size(), firstLine, count, current.toString()));
        }
        return chunks;
    }

    /**
     * A page of a kept output of this run, or null when the run has no output under that handle.
     *
     * @param offset the first line to consider (0-based)
     * @param limit the most lines returned, 1 to {@link #MAX_PAGE_LINES}
     * @param grep when not blank, only lines containing this text (case-insensitive) count
     * @param maxBytes the most UTF-8 bytes of line text on the page; the page ends early to stay under it
     */
    public @Nullable ToolOutputPage read(
            String runId, String handle, long offset, int limit, @Nullable String grep, int maxBytes) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, was " + offset);
        }
        if (limit < 1 || limit > MAX_PAGE_LINES) {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_PAGE_LINES + ", was " + limit);
        }
        ToolOutputInfo info = store.find(runId, handle);
        if (info == null) {
            return null;
        }
        String needle = grep == null || grep.isBlank() ? null : grep.toLowerCase(Locale.ROOT);
        List<ToolOutputPage.Line> lines = new ArrayList<>();
        long bytes = 0;
        long from = offset;
        while (true) {
            List<ToolOutputChunk> batch = store.chunks(runId, handle, from, CHUNKS_PER_READ);
            if (batch.isEmpty()) {
                return new ToolOutputPage(info, offset, needle == null ? null : grep, lines, null);
            }
            for (ToolOutputChunk c : batch) {
                String text = c.text();
                int pos = 0;
                for (long number = c.firstLine(); number < c.firstLine() + c.lineCount(); number++) {
                    int nl = text.indexOf('\n', pos);
                    int end = nl < 0 ? text.length() : nl;
                    int start = pos;
                    pos = end + 1;
                    if (number < offset) {
                        continue;
                    }
                    String line = text.substring(start, end);
                    if (needle != null && !line.toLowerCase(Locale.ROOT).contains(needle)) {
                        continue;
                    }
                    long lineBytes = utf8Length(line, 0, line.length()) + 12;
                    if (bytes + lineBytes > maxBytes) {
                        if (!lines.isEmpty()) {
                            return new ToolOutputPage(info, offset, needle == null ? null : grep, lines, number);
                        }
                        // One line longer than the whole page: its start, so the page is never empty.
                        line = line.substring(0, prefixChars(line, Math.max(0, maxBytes - 40))) + " [line cut]";
                        lineBytes = maxBytes;
                    }
                    lines.add(new ToolOutputPage.Line(number, line));
                    bytes += lineBytes;
                    if (lines.size() >= limit) {
                        long next = number + 1;
                        return new ToolOutputPage(
                                info,
                                offset,
                                needle == null ? null : grep,
                                lines,
                                next < info.storedLines() ? next : null);
                    }
                }
            }
            ToolOutputChunk last = batch.getLast();
            from = last.firstLine() + last.lineCount();
        }
    }

    /** A handle for a call's output: the same call of the same run always gets the same one. */
    static String handle(ToolContext call) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] digest = sha.digest((call.runId() + '\u0000' + call.sessionId() + '\u0000' + call.callId())
                    .getBytes(StandardCharsets.UTF_8));
            return "out_" + HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** Cuts the head after its last newline when that keeps at least three quarters of it. */
    private static int snapHeadEnd(String s, int end) {
        int nl = s.lastIndexOf('\n', end - 1);
        return nl >= 0 && nl + 1 >= end - end / 4 ? nl + 1 : end;
    }

    /** Starts the tail after its first newline when that keeps at least three quarters of it. */
    private static int snapTailStart(String s, int start) {
        int nl = s.indexOf('\n', start);
        return nl >= 0 && nl + 1 - start <= (s.length() - start) / 4 ? nl + 1 : start;
    }

    /** Lines, as they are kept (wrapped at {@link #MAX_LINE_CHARS}), that begin in {@code s[from, to)}. */
    private static long lines(String s, int from, int to) {
        long lines = 0;
        int pos = from;
        while (pos < to) {
            int nl = s.indexOf('\n', pos);
            int lineEnd = nl < 0 || nl >= to ? to : nl;
            int len = lineEnd - pos;
            lines += Math.max(1, (len + MAX_LINE_CHARS - 1) / MAX_LINE_CHARS);
            pos = lineEnd + 1;
        }
        return lines;
    }

    /** UTF-8 bytes of {@code s[from, to)}, without encoding it. */
    static long utf8Length(String s, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** The longest prefix, in chars, of at most {@code bytes} UTF-8 bytes, never splitting a pair. */
    static int prefixChars(String s, long bytes) {
        long n = 0;
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            int width;
            int chars = 1;
            if (c < 0x80) {
                width = 1;
            } else if (c < 0x800) {
                width = 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                width = 4;
                chars = 2;
            } else {
                width = 3;
            }
            if (n + width > bytes) {
                break;
            }
            n += width;
            i += chars;
        }
        return i;
    }

    /** The start of the longest suffix of at most {@code bytes} UTF-8 bytes, never splitting a pair. */
    static int suffixStart(String s, long bytes) {
        long n = 0;
        int i = s.length();
        while (i > 0) {
            char c = s.charAt(i - 1);
            int width;
            int chars = 1;
            if (c < 0x80) {
                width = 1;
            } else if (c < 0x800) {
                width = 2;
            } else if (Character.isLowSurrogate(c) && i - 2 >= 0 && Character.isHighSurrogate(s.charAt(i - 2))) {
                width = 4;
                chars = 2;
            } else {
                width = 3;
            }
            if (n + width > bytes) {
                break;
            }
            n += width;
            i -= chars;
        }
        return i;
    }
}
