"""Chapter 9 — attention and a character-level Transformer: the task table. 9.1–9.3 are
attention itself (a softmax that survives a fully masked row, the masked scaled dot product,
heads as a batch axis); 9.4–9.5 build the model (the pre-norm block, token and position
embeddings); 9.6–9.8 are what a trained model is used for and how to make it fit (sampling,
the key/value cache, attention in tiles). Chapter 9 arrived in course version 1.3."""

from . import Task

SINCE = "1.3"

TASKS = [
    Task(
        "9.1",
        "safe_softmax: a fully masked row gives zeros",
        10,
        "§3",
        "forward: m = x.data.max(-1, keepdims) with m = 0 where it is −∞; e = exp(x − m); "
        "s = e.sum(-1, keepdims); out = e / s where s > 0, 0 where s = 0 (divide by "
        "where(s == 0, 1, s)); save x and ctx.out = out. backward: y = _probabilities(ctx); "
        "return y · (g − (g · y).sum(-1, keepdim=True)).",
        since=SINCE,
        idea="A hidden position gets the score minus infinity, whose exponential is zero, so "
        "it takes no share of the weights. A query that may see nothing has minus infinity "
        "everywhere: subtracting the row's maximum (itself minus infinity) gives nan, and nan "
        "spreads. Such a row has no weights to share out, so it gets zeros, and so does its "
        "gradient; every other row is the ordinary softmax, largest score subtracted first.",
        see="sp.safe_softmax(sp.tensor([[0., 1.], [float('-inf'), float('-inf')]])) should "
        "print a softmax row and a row of zeros",
    ),
    Task(
        "9.2",
        "scaled dot-product attention with a mask",
        15,
        "§4",
        "causal_mask: ones(L, S, dtype=bool, device=device).tril(diagonal). attention: scale "
        "defaults to 1/√E (E = query.shape[-1]); scores = (q @ kᵀ(−2, −1)) · scale; a bool "
        "mask: scores.masked_fill(~mask, −∞); a float mask: scores + mask; weights = "
        "safe_softmax(scores); return dropout(weights, dropout_p) @ value, weights.",
        since=SINCE,
        idea="Each query scores every key by a dot product, the scores become weights by a "
        "softmax, and the answer is the weighted mean of the values. The mask acts on the "
        "scores, before the softmax, so hidden keys get nothing and the rest still sum to "
        "one; hiding them after the softmax leaves rows that no longer sum to one. The scores "
        "are divided by the square root of the width, which keeps their spread near one "
        "whatever the width, so the softmax does not saturate.",
        see="F.scaled_dot_product_attention(q, k, v, is_causal=True) for q = k = v = "
        "sp.eye(3)[None]: row i should mix only the first i + 1 rows of v",
    ),
    Task(
        "9.3",
        "split_heads and merge_heads: heads as a batch axis",
        10,
        "§5",
        "split_heads: *lead, t, e = x.shape; x.reshape(*lead, t, h, e // h).transpose(-3, "
        "-2). merge_heads: *lead, h, t, d = x.shape; x.transpose(-3, -2).reshape(*lead, t, "
        "h · d).",
        since=SINCE,
        idea="Each position's features are cut into h equal slices, one per head, and the "
        "slice index is moved in front of the positions so that the heads become a batch "
        "axis: one batched matrix product then serves every head. Merging undoes exactly "
        "that, putting each position's head outputs side by side again. The cut is along the "
        "features, never along the positions.",
        see="split_heads(sp.arange(12.).reshape(1, 2, 6), 2)[0, 1] should be the second "
        "half of each position's features",
    ),
    Task(
        "9.4",
        "the Transformer block: pre-norm and post-norm",
        15,
        "§6",
        "norm_first: x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, "
        "is_causal, kv_cache); x = x + self._ff_block(self.norm2(x)). Otherwise: x = "
        "self.norm1(x + self._sa_block(x, ...)); x = self.norm2(x + self._ff_block(x)). "
        "Return x.",
        since=SINCE,
        idea="A block does two things, attend and then think per position, and each is "
        "added to what came in rather than replacing it: the residual path carries the "
        "input, and its gradient, straight through. Pre-norm normalises only what goes into "
        "each branch and leaves the residual path clean; post-norm normalises the sum after "
        "each addition. The same two branches, in a different place relative to the norms.",
        see="compare sp.nn.TransformerEncoderLayer(8, 2, 16, 0.0, norm_first=True, "
        "batch_first=True) with PyTorch's after load_state_dict, or print x after each line",
    ),
    Task(
        "9.5",
        "token and position embeddings",
        10,
        "§7",
        "positions = arange(start, start + idx.shape[-1], device=idx.device); return "
        "self.token_embedding(idx) + self.position_embedding(positions) (the (T, E) rows "
        "broadcast over the batch).",
        since=SINCE,
        idea="A token's vector says what it is, and a second table, one row per position, "
        "says where it is; the two are added. Positions count from where the new tokens "
        "start, which is zero for a whole sequence and the cache's length during "
        "generation. The position rows are the same for every sequence in the batch.",
        see="m = sp.GPT(5, 8, 1, 1, 4); compare m.embed(idx)[0, t] with "
        "m.token_embedding.weight[idx[0, t]] + m.position_embedding.weight[t]",
    ),
    Task(
        "9.6",
        "next_token_probs: temperature and top-k",
        10,
        "§8",
        "logits = logits / temperature; if top_k is not None and top_k < V: kth = "
        "logits.topk(top_k, dim=-1).values[..., -1:]; logits = logits.masked_fill(logits < "
        "kth, −∞); return softmax(logits, dim=-1).",
        since=SINCE,
        idea="Dividing the logits by the temperature sharpens the distribution below one and "
        "flattens it above. Top-k keeps only the k likeliest tokens: everything strictly "
        "below the k-th largest logit becomes impossible before the softmax, so what is left "
        "still sums to one. Ties with the k-th value are kept, so at least k tokens survive, "
        "sometimes more, never fewer.",
        see="sp.next_token_probs(sp.tensor([[1., 3., 3., 2.]]), 1.0, top_k=1): both 3s "
        "should keep half each",
    ),
    Task(
        "9.7",
        "the key/value cache",
        15,
        "§9",
        "update: the first time keep key and value; after that self.keys = cat([self.keys, "
        "key], dim=-2), the same for values; return both. mask(new): s = len(self); return "
        "causal_mask(new, s, diagonal=s − new, device=self.keys.device).",
        since=SINCE,
        idea="The keys and values of old positions never change in a causal model, so each "
        "layer keeps them and appends the new ones, keys and values alike, along the "
        "positions. The new queries see every kept position and, among themselves, only "
        "those before them: the causal triangle, moved so that the last query sees the last "
        "key. With the cache the logits are the same as running the model on everything.",
        see="c = m.new_caches(); m(idx[:, :4], c), then m(idx[:, 4:5], c)[:, -1] against "
        "m(idx[:, :5])[:, -1]",
    ),
    Task(
        "9.8",
        "tiled attention: the online softmax",
        15,
        "§10",
        "online_step: m_new = maximum(m, scores.max(-1, keepdims)); safe = m_new with 0 "
        "where −∞; α = exp(m − safe); p = exp(scores − safe); return m_new, α · total + "
        "p.sum(-1, keepdims), α · acc + p @ values. finish: acc / where(total == 0, 1, "
        "total).",
        since=SINCE,
        idea="Walk over the keys a tile at a time and keep, per query, the largest score so "
        "far, the sum of exponentials and the weighted sum of values. When a tile raises the "
        "maximum, everything summed so far was measured against the old one and must be "
        "scaled down by the exponential of the difference: the running sum as well as the "
        "weighted values. At the end, the weighted sum divided by the sum is the softmax "
        "average, and only one tile of scores ever existed.",
        see="compare sp.tiled_attention(q, k, v, tile_size=2).data with "
        "F.scaled_dot_product_attention(q, k, v).data on q, k, v of 5 positions",
    ),
]
