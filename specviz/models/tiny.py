"""Tiny random-weight causal LMs at real vocabulary sizes, built offline (for tests and offline demos)."""

from __future__ import annotations

from pathlib import Path

GPT2_VOCAB = 50257


def word_tokenizer(vocab_size: int, eos: str = "<|endoftext|>"):
    """A word-level tokenizer: 'w0 w1 ...' maps to ids 0, 1, ...; the last id is the end of text."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {f"w{i}": i for i in range(vocab_size - 1)}
    vocab[eos] = vocab_size - 1
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="w0"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=eos, unk_token="w0")


def tiny_gemma3(vocab_size: int, *, layers: int = 3, window: int = 4, hidden: int = 32, seed: int = 0):
    """A Gemma3ForCausalLM of random weights: every third layer global, the others a sliding window of `window`
    positions (Gemma 3's own pattern is five sliding layers, then a global one, with a window of 512)."""
    import torch
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    torch.manual_seed(seed)
    kinds = ["full_attention" if (i + 1) % 3 == 0 else "sliding_attention" for i in range(layers)]
    config = Gemma3TextConfig(vocab_size=vocab_size, hidden_size=hidden, intermediate_size=2 * hidden,
                              num_hidden_layers=layers, num_attention_heads=2, num_key_value_heads=1, head_dim=16,
                              query_pre_attn_scalar=16, sliding_window=window, layer_types=kinds,
                              max_position_embeddings=256, initializer_range=0.3, bos_token_id=vocab_size - 1,
                              eos_token_id=vocab_size - 1, pad_token_id=0)
    return Gemma3ForCausalLM(config).eval()


def save_tiny(folder: Path, *, arch: str = "gpt2", vocab_size: int = GPT2_VOCAB, layers: int = 2,
              seed: int = 0, window: int = 4) -> Path:
    """Build a tiny model from a config (random weights), save it with its tokenizer, return the folder.

    arch: "gpt2", "llama" (SmolLM2's architecture) or "gemma3" (sliding-window layers of `window` positions)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    if arch == "gemma3":
        model = tiny_gemma3(vocab_size, layers=max(layers, 3), window=window, seed=seed)
    elif arch == "gpt2":
        config = GPT2Config(vocab_size=vocab_size, n_positions=256, n_embd=32, n_layer=layers, n_head=2,
                            bos_token_id=vocab_size - 1, eos_token_id=vocab_size - 1, initializer_range=0.3)
        model = GPT2LMHeadModel(config)
    else:
        config = LlamaConfig(vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=layers,
                             num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=256,
                             bos_token_id=vocab_size - 1, eos_token_id=vocab_size - 1, initializer_range=0.3)
        model = LlamaForCausalLM(config)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    word_tokenizer(vocab_size).save_pretrained(folder)
    return folder
