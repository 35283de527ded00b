/**
 * Memory of past incidents: a resolution record per resolved incident (symptoms, root cause, fix,
 * verified actions), a derived hybrid index (Lucene BM25 + in-process MiniLM embeddings in an HNSW
 * graph, fused by reciprocal rank) rebuilt from the database, and the tool, REST endpoint and
 * console module that ask it "seen this before?".
 */
@NullMarked
package dev.cadre.platform.recall;

import org.jspecify.annotations.NullMarked;
