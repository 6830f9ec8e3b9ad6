"""SGLang's tree verification kernel transcribed in Python, as an independent check of ``specviz.core.threshold``.

Source: sgl-project/sglang at commit 120affb9613cc3f5bcd055ec09c7621d3ced0ebc,
``sgl-kernel/csrc/speculative/speculative_sampling.cuh``: the kernel ``TreeSpeculativeSamplingTargetOnly`` for
one batch row (bx = 0) and its launcher's ``capped_threshold_acc = fmaxf(threshold_acc, 1e-9f)``; the final
sample is flashinfer's ``DeviceSamplingFromProb`` (the first index, among values > 0, whose inclusive cumulative
sum exceeds u = coin · sum), with the kernel's fallback to the last valid index. The caller,
``python/sglang/srt/speculative/eagle_info.py``, passes ``draft_probs = torch.zeros(...)``: ``zero_draft_probs``.
DType is float32, as there. ``tree_arrays`` lays the project's ``Tree`` out as SGLang's
``retrive_*`` arrays (node 0 the root, the drafted nodes after it in draw order).
"""

from __future__ import annotations

import numpy as np

FLOAT = np.float32


def tree_speculative_sampling_target_only(candidates, retrive_index, retrive_next_token, retrive_next_sibling,
                                          uniform_samples, uniform_samples_for_final_sampling, target_probs,
                                          draft_probs, num_speculative_tokens, threshold_single=1.0,
                                          threshold_acc=1.0):
    """(predicts, accept_index, accept_token_num) for one batch row; draft_probs is modified as on the device."""
    threshold_single = FLOAT(threshold_single)
    threshold_acc = max(FLOAT(threshold_acc), FLOAT(1e-9))  # the launcher's cap
    d = target_probs.shape[1]
    predicts = {}
    accept_index = [-1] * num_speculative_tokens
    prob_acc = FLOAT(0.0)
    cur_prob_offset = 0  # a row of target_probs / draft_probs
    coin = FLOAT(uniform_samples[0])
    last_accepted_retrieve_idx = retrive_index[0]
    accept_index[0] = last_accepted_retrieve_idx
    num_accepted_tokens = 0
    cur_index = 0
    for _ in range(1, num_speculative_tokens):
        cur_index = retrive_next_token[cur_index]
        while cur_index != -1:
            draft_index = retrive_index[cur_index]
            draft_token_id = candidates[cur_index]
            target_prob_single = target_probs[cur_prob_offset, draft_token_id]
            prob_acc = FLOAT(prob_acc + target_prob_single)
            if coin <= prob_acc / threshold_acc or target_prob_single >= threshold_single:
                prob_acc = FLOAT(0.0)
                cur_prob_offset = cur_index
                coin = FLOAT(uniform_samples[cur_index])
                predicts[last_accepted_retrieve_idx] = draft_token_id
                num_accepted_tokens += 1
                accept_index[num_accepted_tokens] = draft_index
                last_accepted_retrieve_idx = draft_index
                break
            draft_probs[cur_prob_offset, draft_token_id] = target_probs[cur_prob_offset, draft_token_id]
            cur_index = retrive_next_sibling[cur_index]
        if cur_index == -1:
            break
    coin = FLOAT(uniform_samples_for_final_sampling)
    q_vec = target_probs[cur_prob_offset].astype(FLOAT)
    p_vec = draft_probs[cur_prob_offset].astype(FLOAT) if num_accepted_tokens != num_speculative_tokens - 1 \
        else np.zeros(d, dtype=FLOAT)  # there is no draft_probs for the bonus token
    relu_q_minus_p = np.maximum(q_vec - p_vec, FLOAT(0))
    sum_relu_q_minus_p = relu_q_minus_p.sum(dtype=FLOAT)
    u = FLOAT(coin * sum_relu_q_minus_p)
    predicts[last_accepted_retrieve_idx] = _sample_from_prob(relu_q_minus_p, u)
    return predicts, accept_index, num_accepted_tokens


def _sample_from_prob(values: np.ndarray, u) -> int:
    """DeviceSamplingFromProb with pred x > 0, then the kernel's fallback when rounding leaves u above the sum."""
    valid = values > 0
    cdf = np.cumsum(np.where(valid, values, FLOAT(0)), dtype=FLOAT)
    hits = np.flatnonzero((cdf > u) & valid)
    if hits.size:
        return int(hits[0])
    last_valid = np.flatnonzero(valid)
    return int(last_valid[-1]) if last_valid.size else len(values) - 1


def zero_draft_probs(target_probs: np.ndarray) -> np.ndarray:
    return np.zeros_like(target_probs, dtype=FLOAT)


def tree_arrays(tree, p_model, root_token: int = 0):
    """SGLang's arrays for a project Tree: candidates, retrive_index/next_token/next_sibling, target_probs rows.

    Node 0 is the root (the last committed token, ``root_token``); every drafted node follows in the tree's
    draw order. Row i of target_probs is p at node i's context (the distribution its children are checked
    against, and the bonus after it).
    """
    nodes = tree.nodes()
    index = {(): 0} | {node.path: i + 1 for i, node in enumerate(nodes)}
    n = len(nodes) + 1
    candidates = [root_token] + [node.token for node in nodes]
    next_token, next_sibling = [-1] * n, [-1] * n
    contexts = {(): tuple(tree.prefix)}
    for node in nodes:
        contexts[node.path] = contexts[node.path[:-1]] + (node.token,)
        parent = node.path[:-1]
        if node.path[-1] == 0:
            next_token[index[parent]] = index[node.path]
        else:
            next_sibling[index[parent + (node.path[-1] - 1,)]] = index[node.path]
    rows = [np.array([float(v) for v in _probs(p_model(contexts[path]))], dtype=FLOAT)
            for path in sorted(index, key=index.get)]
    return candidates, list(range(n)), next_token, next_sibling, np.stack(rows)


def _probs(dist):
    return [dist.prob(x) for x in range(dist.vocab_size)]


def committed(predicts, accept_index, accept_token_num) -> tuple[int, ...]:
    """The tokens the row commits: predicts at each accepted index, then the final sample."""
    return tuple(predicts[accept_index[j]] for j in range(accept_token_num + 1))


# --- EAGLE's draft tree as SGLang builds it -------------------------------------------------------------------
# Sources, sgl-project/sglang: python/sglang/srt/speculative/eagle_worker.py, EAGLEWorker.draft_forward
# (``probs = softmax(logits); topk_p, topk_index = fast_topk(probs, self.topk, dim=-1)`` at every step), eagle_utils.py
# ``fast_topk`` (``torch.max`` for topk == 1, else ``torch.topk``) and ``select_top_k_tokens`` (step 0 keeps the root's
# top K; a later step multiplies each frontier node's score by its children's topk_p and keeps the K best of the K·K),
# and build_eagle_tree.py ``build_tree_kernel_efficient_preprocess`` at commit 009db01a7c0d5460611d543516401eb497641918
# (the ``num_verify_tokens − 1`` best scores of every candidate, their indices sorted, parents from parents_list).
# numpy stands for torch; ties go to the lower index (a stable sort: torch.max's first index; torch.topk leaves tie
# order unspecified).


def fast_topk(values: np.ndarray, topk: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(-values, axis=-1, kind="stable")[..., :topk]
    return np.take_along_axis(values, order, axis=-1), order


def eagle_tree(q_model, prefix, topk: int, steps: int, num_verify_tokens: int) -> list[tuple[int, ...]]:
    """The drafted tree of one request as SGLang builds it: every selected node as its token path from the root, in
    the order of the sorted selection (a parent before its children; siblings in descending score)."""
    probs = np.array([float(v) for v in _probs(q_model(tuple(prefix)))])
    topk_p, topk_index = fast_topk(probs, topk)
    scores, inputs = topk_p, list(topk_index)
    paths = [(int(t),) for t in topk_index]  # the candidate paths, by their index in the flat score list
    score_list, parents_list = [topk_p], [np.arange(-1, topk)]
    frontier = list(paths)
    for i in range(1, steps):
        rows = [fast_topk(np.array([float(v) for v in _probs(q_model(tuple(prefix) + path))]), topk)
                for path in frontier]
        step_p = np.stack([r[0] for r in rows])  # (topk, topk)
        step_index = np.stack([r[1] for r in rows])
        expand_scores = scores[:, None] * step_p
        topk_cs_p, topk_cs_index = fast_topk(expand_scores.flatten(), topk)
        flat_index = step_index.reshape(topk * topk)
        paths += [frontier[j // topk] + (int(flat_index[j]),) for j in range(topk * topk)]
        score_list.append(expand_scores.flatten())
        parents_list.append(topk_cs_index + (topk**2 * (i - 1) + topk))
        frontier = [frontier[j // topk] + (int(flat_index[j]),) for j in topk_cs_index]
        scores = topk_cs_p
        inputs = [int(flat_index[j]) for j in topk_cs_index]
    del inputs
    all_scores = np.concatenate(score_list)
    _, best = fast_topk(all_scores, num_verify_tokens - 1)
    return [paths[j] for j in sorted(best)]
