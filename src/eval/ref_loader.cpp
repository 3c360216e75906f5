#include "eval/ref_loader.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "ordo/model/ds4_model_view.hpp"
#include "ordo/quant/dequant_row.hpp"

namespace ordo::eval {

namespace {

using tensor = gguf::tensor_info;

std::vector<float> dequant(const tensor& t) {
  std::vector<float> out(t.elements());
  try {
    quant::dequant_row(static_cast<uint32_t>(t.type), t.data, out.data(), out.size());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(t.name + ": the reference cannot read it: " + e.what());
  }
  return out;
}

/// A 2-D tensor [ne0, ne1] as the matrix [ne1 rows, ne0 cols]; a 1-D tensor as one row.
ref::mat to_mat(const tensor* t, const std::string& what) {
  if (!t) throw std::runtime_error("reference loader: tensor for " + what + " is missing");
  const std::vector<float> v = dequant(*t);
  const uint64_t cols = t->dims[0];
  const uint64_t rows = t->elements() / cols;
  ref::mat m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  for (uint64_t i = 0; i < v.size(); ++i) m.data()[i] = v[i];
  return m;
}

ref::vec to_vec(const tensor* t, const std::string& what) {
  const ref::mat m = to_mat(t, what);
  return Eigen::Map<const ref::vec>(m.data(), m.size());
}

/// Expert e of a 3-D [ne0, ne1, n_expert] tensor as [ne1, ne0].
std::vector<ref::mat> to_experts(const tensor* t, const std::string& what) {
  const ref::mat all = to_mat(t, what);  // [ne1 * n_expert, ne0]
  const Eigen::Index rows = static_cast<Eigen::Index>(t->dims[1]);
  std::vector<ref::mat> out;
  for (uint64_t e = 0; e < t->dims[2]; ++e) out.push_back(all.middleRows(static_cast<Eigen::Index>(e) * rows, rows));
  return out;
}

using model::ds4_role;

template <class Block>
ref::layer_weights load_block(const Block& b, const ref::config& c, int ratio, const std::string& prefix) {
  auto T = [&](ds4_role r) { return b.get(r); };
  auto M = [&](ds4_role r, const char* what) { return to_mat(T(r), prefix + what); };
  auto V = [&](ds4_role r, const char* what) { return to_vec(T(r), prefix + what); };
  ref::layer_weights w;
  w.hc_attn = {M(ds4_role::hc_attn_fn, "hc_attn_fn"), V(ds4_role::hc_attn_scale, "hc_attn_scale"),
               V(ds4_role::hc_attn_base, "hc_attn_base")};
  w.attn_norm = V(ds4_role::attn_norm, "attn_norm");
  w.q_a = M(ds4_role::attn_q_a, "attn_q_a");
  w.q_a_norm = V(ds4_role::attn_q_a_norm, "attn_q_a_norm");
  w.q_b = M(ds4_role::attn_q_b, "attn_q_b");
  w.kv = M(ds4_role::attn_kv, "attn_kv");
  w.kv_norm = V(ds4_role::attn_kv_norm, "attn_kv_a_norm");
  w.sinks = V(ds4_role::attn_sinks, "attn_sinks");
  // The file's wo_a is [group_dim, groups*rank]: row g*rank+r is group g's rank row r.
  w.out_a = M(ds4_role::attn_output_a, "attn_output_a");
  w.out_b = M(ds4_role::attn_output_b, "attn_output_b");
  if (ratio != 0) {
    w.compressor = {M(ds4_role::attn_compressor_kv, "attn_compressor_kv"),
                    M(ds4_role::attn_compressor_gate, "attn_compressor_gate"),
                    M(ds4_role::attn_compressor_ape, "attn_compressor_ape"),
                    V(ds4_role::attn_compressor_norm, "attn_compressor_norm")};
  }
  if (ratio == 4) {
    w.indexer.q_b = M(ds4_role::indexer_attn_q_b, "indexer.attn_q_b");
    w.indexer.proj = M(ds4_role::indexer_proj, "indexer.proj");
    w.indexer.compressor = {M(ds4_role::indexer_compressor_kv, "indexer_compressor_kv"),
                            M(ds4_role::indexer_compressor_gate, "indexer_compressor_gate"),
                            M(ds4_role::indexer_compressor_ape, "indexer_compressor_ape"),
                            V(ds4_role::indexer_compressor_norm, "indexer_compressor_norm")};
  }
  w.hc_ffn = {M(ds4_role::hc_ffn_fn, "hc_ffn_fn"), V(ds4_role::hc_ffn_scale, "hc_ffn_scale"),
              V(ds4_role::hc_ffn_base, "hc_ffn_base")};
  w.ffn_norm = V(ds4_role::ffn_norm, "ffn_norm");
  w.router = M(ds4_role::ffn_gate_inp, "ffn_gate_inp");
  if (T(ds4_role::exp_probs_b)) w.router_bias = V(ds4_role::exp_probs_b, "exp_probs_b");
  if (const tensor* t = T(ds4_role::ffn_gate_tid2eid)) {
    const uint64_t used = t->dims[0], vocab = t->dims[1];
    if (used != c.n_expert_used)
      throw std::runtime_error(t->name + ": " + std::to_string(used) + " experts per token, expected " +
                               std::to_string(c.n_expert_used));
    w.tid2eid.assign(vocab, std::vector<int32_t>(used));
    for (uint64_t tok = 0; tok < vocab; ++tok) {
      std::memcpy(w.tid2eid[tok].data(), t->data + tok * used * 4, used * 4);
      for (int32_t e : w.tid2eid[tok])
        if (e < 0 || static_cast<uint32_t>(e) >= c.n_expert)
          throw std::runtime_error(t->name + ": token " + std::to_string(tok) + " routes to expert " +
                                   std::to_string(e) + " outside 0.." + std::to_string(c.n_expert - 1));
    }
  }
  auto gate = to_experts(T(ds4_role::ffn_gate_exps), prefix + "ffn_gate_exps");
  auto up = to_experts(T(ds4_role::ffn_up_exps), prefix + "ffn_up_exps");
  auto down = to_experts(T(ds4_role::ffn_down_exps), prefix + "ffn_down_exps");
  for (std::size_t e = 0; e < gate.size(); ++e) w.experts.push_back({std::move(gate[e]), std::move(up[e]), std::move(down[e])});
  w.shared = {M(ds4_role::ffn_gate_shexp, "ffn_gate_shexp"), M(ds4_role::ffn_up_shexp, "ffn_up_shexp"),
              M(ds4_role::ffn_down_shexp, "ffn_down_shexp")};
  return w;
}

}  // namespace

model::ds4_naming detect_naming(const gguf::file& f) { return model::guess_ds4_naming(f); }

ref_model load_ref_model(const gguf::file& f, const gguf::file* mtp_sidecar) {
  ref_model r;
  r.naming = detect_naming(f);
  const auto view = model::open_ds4(f, r.naming, mtp_sidecar);
  r.config = view.hparams;  // open_ds4 validated it; the reference needs one thing more
  const ref::config& c = r.config;
  if (!c.expert_weights_norm) throw std::runtime_error("reference: expert_weights_norm = false is not DS4's router");
  ref::model_weights& m = r.weights;
  m.token_embd = to_mat(view.get(ds4_role::token_embd), "token_embd");
  for (uint32_t il = 0; il < c.n_layer; ++il)
    m.layers.push_back(load_block(view.layers[il], c, static_cast<int>(c.ratio(il)), "blk." + std::to_string(il) + "."));
  m.hc_head = {to_mat(view.get(ds4_role::output_hc_fn), "output_hc_fn"),
               to_vec(view.get(ds4_role::output_hc_scale), "output_hc_scale"),
               to_vec(view.get(ds4_role::output_hc_base), "output_hc_base")};
  m.output_norm = to_vec(view.get(ds4_role::output_norm), "output_norm");
  m.output = to_mat(view.get(ds4_role::output), "output");
  if (view.mtp) {
    const auto& b = *view.mtp;
    const std::string prefix = r.naming == model::ds4_naming::llama ? "blk." + std::to_string(c.n_layer) + "." : "mtp.0.";
    ref::mtp_weights t;
    t.block = load_block(b, c, 0, prefix);
    t.enorm = to_vec(b.get(ds4_role::mtp_enorm), prefix + "enorm");
    t.hnorm = to_vec(b.get(ds4_role::mtp_hnorm), prefix + "hnorm");
    if (r.naming == model::ds4_naming::llama) {
      // nextn.eh_proj is [e_proj | h_proj] on the input dim: llama.cpp concatenates
      // (enorm(embedding), hnorm(stream)) in that order before the projection.
      const ref::mat eh = to_mat(b.get(ds4_role::mtp_eh_proj), prefix + "nextn.eh_proj");
      t.e_proj = eh.leftCols(c.n_embd);
      t.h_proj = eh.rightCols(c.n_embd);
      t.hc_head = m.hc_head;  // llama.cpp's MTP reuses the main output HC head
      t.norm = b.get(ds4_role::mtp_norm) ? to_vec(b.get(ds4_role::mtp_norm), prefix + "nextn.shared_head_norm")
                                         : m.output_norm;
    } else {
      t.e_proj = to_mat(b.get(ds4_role::mtp_e_proj), prefix + "e_proj");
      t.h_proj = to_mat(b.get(ds4_role::mtp_h_proj), prefix + "h_proj");
      t.hc_head = {to_mat(b.get(ds4_role::mtp_hc_head_fn), prefix + "hc_head_fn"),
                   to_vec(b.get(ds4_role::mtp_hc_head_scale), prefix + "hc_head_scale"),
                   to_vec(b.get(ds4_role::mtp_hc_head_base), prefix + "hc_head_base")};
      t.norm = to_vec(b.get(ds4_role::mtp_norm), prefix + "norm");
    }
    m.mtp.push_back(std::move(t));
  }
  return r;
}

}  // namespace ordo::eval
