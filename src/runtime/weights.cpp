// Weights through the DS4 tensor map (include/ordo/runtime/weights.hpp).
#include "ordo/runtime/weights.hpp"

namespace ordo::runtime {

weight_view make_weight_view(const gguf::tensor_info& t) {
  weight_view v;
  v.name = t.name;
  v.data = t.data;
  v.format = t.type;
  v.cols = t.dims.at(0);
  v.rows = t.dims.size() > 1 ? t.dims[1] : 1;
  v.experts = t.dims.size() > 2 ? t.dims[2] : 1;
  const uint64_t d0 = t.dims[0];
  v.row_bytes = gguf::tensor_nbytes(t.type, std::span<const uint64_t>(&d0, 1));
  return v;
}

const weight_view* block_weights::find(model::ds4_role r) const {
  const weight_view& v = views[static_cast<std::size_t>(r)];
  return v ? &v : nullptr;
}

const weight_view& block_weights::need(model::ds4_role r) const {
  if (const weight_view* v = find(r)) return *v;
  const model::ds4_role_info& ri = model::ds4_role_of(r);
  const std::string_view suffix = naming == model::ds4_naming::llama ? ri.llama_name : ri.ds4_name;
  const std::string what = suffix.empty() ? "role without a tensor in " + std::string(model::to_string(naming)) + " naming"
                                          : prefix + std::string(suffix);
  std::string where = ri.scope == model::ds4_scope::global ? "global"
                      : mtp ? "MTP block"
                            : "layer " + std::to_string(layer) + ", ratio " + std::to_string(ratio) + (hash ? ", hash-routed" : "");
  throw model::ds4_error(what + ": needed by the layer step but absent (" + where + ")");
}

namespace {
block_weights make_block(const model::ds4_block_view<gguf::tensor_info>& b, model::ds4_naming naming, bool mtp,
                         std::string prefix) {
  block_weights w;
  w.layer = b.layer;
  w.ratio = b.ratio;
  w.hash = b.hash;
  w.mtp = mtp;
  w.naming = naming;
  w.prefix = std::move(prefix);
  for (std::size_t i = 0; i < model::ds4_role_count; ++i)
    if (b.tensors[i]) w.views[i] = make_weight_view(*b.tensors[i]);
  return w;
}
}  // namespace

const gguf::value* tensor_table::find(std::string_view key) const {
  for (const auto& kv : metadata)
    if (kv.key == key) return &kv.val;
  return nullptr;
}

const gguf::tensor_info* tensor_table::find_tensor(std::string_view tensor) const {
  for (const auto& t : tensors)
    if (t.name == tensor) return &t;
  return nullptr;
}

// Resolves the DS4 blocks of `f` (a gguf::file or a tensor_table) and its MTP sidecar.
template <class File>
void model_weights::bind(const File& f, const File* side) {
  naming_ = model::guess_ds4_naming(f);
  const auto view = model::open_ds4(f, naming_, side);
  hparams_ = view.hparams;
  model::ds4_block_view<gguf::tensor_info> globals;
  globals.tensors = view.globals;
  globals_ = make_block(globals, naming_, false, "");
  for (const auto& b : view.layers) layers_.push_back(make_block(b, naming_, false, "blk." + std::to_string(b.layer) + "."));
  if (view.mtp)
    mtp_ = make_block(*view.mtp, naming_, true,
                      naming_ == model::ds4_naming::llama ? "blk." + std::to_string(view.mtp->layer) + "." : "mtp.0.");
}

model_weights model_weights::open(const std::filesystem::path& main, const std::filesystem::path& mtp) {
  model_weights m;
  m.files_.push_back(std::make_unique<gguf::file>(gguf::file::open(main)));
  const gguf::file* side = nullptr;
  if (!mtp.empty()) {
    m.files_.push_back(std::make_unique<gguf::file>(gguf::file::open(mtp)));
    side = m.files_.back().get();
  }
  m.bind(*m.files_.front(), side);
  return m;
}

model_weights model_weights::from_tables(const tensor_table& main, const tensor_table* mtp) {
  model_weights m;
  m.bind(main, mtp);
  return m;
}

std::vector<const weight_view*> model_weights::all() const {
  std::vector<const weight_view*> out;
  auto add = [&](const block_weights& b) {
    for (const auto& v : b.views)
      if (v) out.push_back(&v);
  };
  add(globals_);
  for (const auto& l : layers_) add(l);
  if (mtp_) add(*mtp_);
  return out;
}

uint64_t model_weights::bytes() const {
  uint64_t b = 0;
  for (const weight_view* v : all()) b += v->bytes();
  return b;
}

model_weights model_weights::rebased(const std::function<const std::byte*(const weight_view&)>& place) const {
  model_weights m;
  m.hparams_ = hparams_;
  m.naming_ = naming_;
  auto move = [&](const block_weights& from) {
    block_weights b = from;
    for (auto& v : b.views)
      if (v) v.data = place(v);
    return b;
  };
  m.globals_ = move(globals_);
  for (const auto& l : layers_) m.layers_.push_back(move(l));
  if (mtp_) m.mtp_ = move(*mtp_);
  return m;
}

}  // namespace ordo::runtime
