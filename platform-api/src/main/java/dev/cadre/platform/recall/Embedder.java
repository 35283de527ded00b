package dev.cadre.platform.recall;

/**
 * Turns a text into a unit-length vector whose dot product with another measures how alike their
 * meanings are. {@link MiniLmEmbedder} is the one the platform runs; the benchmark replays cached
 * vectors of the same model through this seam.
 */
public interface Embedder {

    /** A unit-length vector of {@link #dimensions()} floats. */
    float[] embed(String text);

    int dimensions();
}
