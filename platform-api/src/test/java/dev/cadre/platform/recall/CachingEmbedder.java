package dev.cadre.platform.recall;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The real model with each distinct text embedded once: tests ask for the same queries in three modes. */
final class CachingEmbedder implements Embedder {

    private final Embedder model;
    private final Map<String, float[]> cache = new ConcurrentHashMap<>();

    CachingEmbedder(Embedder model) {
        this.model = model;
    }

    @Override
    public float[] embed(String text) {
        return cache.computeIfAbsent(text, model::embed);
    }

    @Override
    public int dimensions() {
        return model.dimensions();
    }
}
