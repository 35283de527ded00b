package dev.cadre.platform.recall;

import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import org.jspecify.annotations.Nullable;

/**
 * all-MiniLM-L6-v2 (quantized, 384 dimensions) run in-process by ONNX Runtime on the CPU: the model
 * ships inside LangChain4j's jar, so embedding needs no network and no service. About 3–5 ms for an
 * incident's symptoms on one core; the session is safe to share between threads.
 */
public final class MiniLmEmbedder implements Embedder {

    private volatile @Nullable AllMiniLmL6V2QuantizedEmbeddingModel model;

    @Override
    public float[] embed(String text) {
        return normalized(model().embed(text.isBlank() ? "-" : text).content().vector());
    }

    /** Loaded on first use (about a second and 25 MB): a platform that never asks pays nothing. */
    private AllMiniLmL6V2QuantizedEmbeddingModel model() {
        AllMiniLmL6V2QuantizedEmbeddingModel m = model;
        if (m == null) {
            synchronized (this) {
                m = model;
                if (m == null) {
                    m = new AllMiniLmL6V2QuantizedEmbeddingModel();
                    model = m;
                }
            }
        }
        return m;
    }

    @Override
    public int dimensions() {
        return 384;
    }

    static float[] normalized(float[] v) {
        double norm = 0;
        for (float x : v) {
            norm += x * x;
        }
        norm = Math.sqrt(norm);
        if (norm == 0) {
            return v;
        }
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (v[i] / norm);
        }
        return out;
    }
}
