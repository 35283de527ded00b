#!/usr/bin/env python3
"""Writes a tiny, deterministic tool-calling model for tests against a real llama.cpp server.

    toolcaller_gguf.py LLAMA_CPP_SOURCE_DIR OUT.gguf

The model is a one-layer qwen2 network with the real Qwen2 tokenizer and chat template (taken from
the llama.cpp source: models/ggml-vocab-qwen2.gguf and the Qwen2.5 template) and hand-set weights.
It does not understand anything; it is a state machine over the previous token:

  end of the prompt ("\\n")  ->  "<"  ->  "tool"  ->  "_call"  ->  ">\\n"  ->  "{"   (one <tool_call>)
  inside the call             ->  short, plain tokens, closing strings soon (llama-server's tool
                                   grammar picks the tool and fills the JSON; string values come out "")
  once a tool result is in the prompt (the template writes "<tool_response>", whose "_response"
  token one attention head looks for)  ->  "Done", then end of turn.

So a request with tools always gets exactly one well-formed tool call, and the next request, holding
its result, gets the text "Done". Needs numpy and the source tree's gguf-py.
"""
import re
import sys

import numpy as np

SOURCE, OUT = sys.argv[1], sys.argv[2]
sys.path.insert(0, SOURCE + "/gguf-py")
from gguf import GGUFReader, GGUFWriter, LlamaFileType  # noqa: E402

vocab = GGUFReader(SOURCE + "/models/ggml-vocab-qwen2.gguf")
tokenizer = {k: f.contents() for k, f in vocab.fields.items() if k.startswith("tokenizer.")}
tokens = tokenizer["tokenizer.ggml.tokens"]
token_id = {t: i for i, t in enumerate(tokens)}

# Shape: 32-wide embeddings, one block, 4 query heads sharing 2 key/value heads, a feed-forward that does nothing.
WIDTH, HEADS, KV_HEADS, FFN = 32, 4, 2, 32
HEAD_DIM = WIDTH // HEADS
KV_WIDTH = KV_HEADS * HEAD_DIM
VOCAB = len(tokens)
BOS, EOS = 151643, 151645          # <|endoftext|>, <|im_end|>
NEWLINE = 198                      # "\n" ("Ċ")

# Dimensions 0..7 of the embedding are "states" (which token came last); dimension 20 marks "_response".
DEFAULT, AFTER_NEWLINE, AFTER_LT, AFTER_TOOL, AFTER_CALL, AFTER_OPEN, RESULT_SEEN, AFTER_DONE = range(8)
MARKER = 20
state_of = {NEWLINE: AFTER_NEWLINE, token_id["<"]: AFTER_LT, token_id["tool"]: AFTER_TOOL,
            token_id["_call"]: AFTER_CALL, token_id[">Ċ"]: AFTER_OPEN, token_id["Done"]: AFTER_DONE}

embedding = np.zeros((VOCAB, WIDTH), np.float32)
embedding[:, DEFAULT] = 1.0
for token, state in state_of.items():
    embedding[token, :] = 0.0
    embedding[token, state] = 1.0
embedding[token_id["_response"], MARKER] = 1.0

# Output logits: a small preference for longer tokens made of JSON-safe characters everywhere, then the
# transitions of the state machine, each far above that preference.
plain = re.compile(r'^[A-Za-z0-9_"{}:\[\]]+$')
preference = np.array([0.05 * min(len(t), 8) - (0.0 if plain.match(t) else 2.0) for t in tokens], np.float32)
logits = np.zeros((VOCAB, WIDTH), np.float32) + preference[:, None]
QUOTE = token_id['"']
logits[QUOTE, :] = 3                 # in every state: close the string ...
logits[EOS, :] = 2                   # ... and stop when nothing else fits
logits[token_id["</"], :] += 5       # end </tool_call> rather than start another call
logits[QUOTE, DEFAULT] = 10
logits[EOS, DEFAULT] = 9
logits[token_id["<"], AFTER_NEWLINE] = 10
logits[token_id["tool"], AFTER_LT] = 10
logits[token_id["_call"], AFTER_TOOL] = 10
logits[token_id[">Ċ"], AFTER_CALL] = 10
logits[token_id["{"], AFTER_OPEN] = 10
logits[EOS, AFTER_OPEN] = 9
logits[token_id["Done"], RESULT_SEEN] = 20
logits[EOS, AFTER_DONE] = 30

# Attention head 0 finds the "_response" marker anywhere before (query bias and key weight on a
# dimension RoPE leaves alone) and writes a quarter of it into RESULT_SEEN.
query_bias = np.zeros(WIDTH, np.float32)
query_bias[3] = 10
key = np.zeros((KV_WIDTH, WIDTH), np.float32)
key[3, MARKER] = 10
value = np.zeros((KV_WIDTH, WIDTH), np.float32)
value[0, MARKER] = 1
attention_out = np.zeros((WIDTH, WIDTH), np.float32)
attention_out[RESULT_SEEN, 0] = 0.25

w = GGUFWriter(OUT, "qwen2")
w.add_name("cadre-toolcaller")
w.add_context_length(4096)
w.add_embedding_length(WIDTH)
w.add_block_count(1)
w.add_feed_forward_length(FFN)
w.add_head_count(HEADS)
w.add_head_count_kv(KV_HEADS)
w.add_layer_norm_rms_eps(1e-6)
w.add_rope_freq_base(1e6)
w.add_file_type(LlamaFileType.MOSTLY_F16)
w.add_tokenizer_model(tokenizer["tokenizer.ggml.model"])
w.add_tokenizer_pre(tokenizer["tokenizer.ggml.pre"])
w.add_token_list(tokens)
w.add_token_types(tokenizer["tokenizer.ggml.token_type"])
w.add_token_merges(tokenizer["tokenizer.ggml.merges"])
w.add_bos_token_id(BOS)
w.add_eos_token_id(EOS)
w.add_pad_token_id(BOS)
with open(SOURCE + "/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja") as template:
    w.add_chat_template(template.read())


def zeros(*shape):
    return np.zeros(shape, np.float32)


def half(a):
    return a.astype(np.float16)


w.add_tensor("token_embd.weight", half(embedding))
w.add_tensor("output.weight", half(logits))
w.add_tensor("output_norm.weight", np.ones(WIDTH, np.float32))
block = "blk.0."
w.add_tensor(block + "attn_norm.weight", np.ones(WIDTH, np.float32))
w.add_tensor(block + "ffn_norm.weight", np.ones(WIDTH, np.float32))
w.add_tensor(block + "attn_q.bias", query_bias)
w.add_tensor(block + "attn_k.bias", zeros(KV_WIDTH))
w.add_tensor(block + "attn_v.bias", zeros(KV_WIDTH))
w.add_tensor(block + "attn_q.weight", half(zeros(WIDTH, WIDTH)))
w.add_tensor(block + "attn_k.weight", half(key))
w.add_tensor(block + "attn_v.weight", half(value))
w.add_tensor(block + "attn_output.weight", half(attention_out))
w.add_tensor(block + "ffn_gate.weight", half(zeros(FFN, WIDTH)))
w.add_tensor(block + "ffn_up.weight", half(zeros(FFN, WIDTH)))
w.add_tensor(block + "ffn_down.weight", half(zeros(WIDTH, FFN)))
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
