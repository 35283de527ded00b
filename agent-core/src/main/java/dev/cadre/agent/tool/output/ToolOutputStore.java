package dev.cadre.agent.tool.output;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where full tool outputs are kept with their run, in chunks of whole lines so a page is read without
 * loading the whole output. {@link InMemoryToolOutputStore} is the in-process one; the platform keeps
 * them in its database. Implementations are thread-safe.
 */
public interface ToolOutputStore {

    /** Keeps an output, replacing one kept before under the same run and handle (a re-run call). */
    void save(ToolOutputInfo info, List<ToolOutputChunk> chunks);

    /** The output kept under this handle in this run, or null: a handle of another run is not found. */
    @Nullable
    ToolOutputInfo find(String runId, String handle);

    /**
     * At most {@code max} chunks of the output, in order, from the one holding line {@code fromLine};
     * empty when the output is unknown or has no line there.
     */
    List<ToolOutputChunk> chunks(String runId, String handle, long fromLine, int max);
}
