// Options → hyperparameters → file plans (metadata + typed, shaped, recipe'd tensors).
#include <stdexcept>

#include "synth/generate.hpp"
#include "synth/recipe.hpp"
#include "synth/synth.hpp"
#include "synth/vocab.hpp"

namespace ordo::synth {

namespace {

std::string_view preset_name(preset p) { return p == preset::tiny ? "tiny" : p == preset::small ? "small" : "full"; }

void check_type(gguf::ggml_type t, model::ds4_type_class c, std::string_view flag) {
  for (auto a : model::ds4_accepted_types(c))
    if (a == t) return;
  std::string list;
  for (auto a : model::ds4_accepted_types(c)) list += (list.empty() ? "" : "|") + gguf::to_string(a);
  throw std::runtime_error(std::string(flag) + " " + gguf::to_string(t) + ": not supported (expected " + list + ")");
}

std::vector<gguf::key_value> general_metadata(const options& opt, gguf::ggml_type dense, gguf::ggml_type experts,
                                              std::string_view arch) {
  std::vector<gguf::key_value> kv;
  kv.push_back({"general.architecture", gguf::value::string(std::string(arch))});
  kv.push_back({"general.name", gguf::value::string("ordo-synth-" + std::string(preset_name(opt.base)))});
  // Provenance only from the arguments (no clock, no host): same args, same bytes.
  kv.push_back({"ordo.synth.seed", gguf::value::u64(opt.seed)});
  kv.push_back({"ordo.synth.dense", gguf::value::string(gguf::to_string(dense))});
  kv.push_back({"ordo.synth.experts", gguf::value::string(gguf::to_string(experts))});
  return kv;
}

std::vector<planned_tensor> plan_tensors(const model::ds4_hparams& h, model::ds4_naming naming,
                                         model::ds4_file_part part, gguf::ggml_type dense, gguf::ggml_type experts) {
  std::vector<planned_tensor> out;
  for (const model::ds4_tensor_spec& s : model::ds4_tensor_specs(h, naming, part)) {
    planned_tensor t;
    t.spec = {s.name, type_for(s.type_class, dense, experts), s.dims};
    t.role = s.role;
    t.layer = s.layer;
    t.init = recipe_for(s.role, s.dims, h);
    row_bytes(t.spec);  // fail here, naming the tensor, if ne0 is not a whole number of blocks
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

plan make_plan(const options& opt) {
  plan p;
  model::ds4_hparams& h = p.hparams;
  h = preset_hparams(opt.base);
  for (const auto& [key, value] : opt.overrides) model::ds4_set_hparam(h, key, value);
  if (opt.mtp) h.n_mtp = 1;
  if (h.n_mtp && !opt.mtp) throw std::runtime_error("--set nextn_predict_layers needs --mtp (which writes the MTP block)");

  tokenizer::vocab vocab = make_vocab(opt.vocab, opt.tokenizer_json, h.n_vocab);
  h.n_vocab = static_cast<uint32_t>(vocab.tokens.size());
  model::validate(h);

  const gguf::ggml_type dense = opt.dense.value_or(default_dense(opt.base));
  const gguf::ggml_type experts = opt.experts.value_or(default_experts(opt.base));
  check_type(dense, model::ds4_type_class::dense_matmul, "--dense");
  check_type(experts, model::ds4_type_class::expert, "--experts");
  if (opt.out.empty()) throw std::runtime_error("-o FILE is required");

  file_plan main;
  main.path = opt.out;
  main.metadata = general_metadata(opt, dense, experts, model::ds4_arch);
  for (auto& kv : model::ds4_metadata(h, opt.naming))
    if (kv.key != "general.architecture") main.metadata.push_back(std::move(kv));
  for (auto& kv : vocab_metadata(vocab)) main.metadata.push_back(std::move(kv));
  main.tensors = plan_tensors(h, opt.naming, model::ds4_file_part::main, dense, experts);
  p.files.push_back(std::move(main));

  if (h.n_mtp && opt.naming == model::ds4_naming::ds4) {
    file_plan side;
    side.path = opt.mtp_out;
    if (side.path.empty()) {
      side.path = opt.out;
      side.path.replace_filename(opt.out.stem().string() + "-mtp" + opt.out.extension().string());
    }
    side.metadata = general_metadata(opt, dense, experts, model::ds4_mtp_arch);
    for (auto& kv : model::ds4_metadata(h, opt.naming))
      if (kv.key != "general.architecture") side.metadata.push_back(std::move(kv));
    side.tensors = plan_tensors(h, opt.naming, model::ds4_file_part::mtp_sidecar, dense, experts);
    p.files.push_back(std::move(side));
  } else if (!opt.mtp_out.empty()) {
    throw std::runtime_error("--mtp-out is only used with --mtp --naming ds4 (llama naming keeps MTP in the main file)");
  }
  return p;
}

}  // namespace ordo::synth
