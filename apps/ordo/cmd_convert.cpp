// `ordo convert`: HF safetensors checkpoint → ds4-named GGUF. Thin: option parsing only; the
// converter lives in src/convert (plan.hpp, run.hpp).
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "convert/run.hpp"
#include "cli.hpp"
#include "subcommand.hpp"

namespace {

using namespace ordo;

int run_convert(int argc, char** argv) {
  convert::convert_request req;
  std::string source, output, config, dense, aux = "f16", experts, vocab = "auto", tokenizer_json, mtp_out;
  bool quiet = false, dry_run = false;
  CLI::App cli{
      "Convert a DeepSeek V4 HF safetensors checkpoint to a GGUF with ds4 tensor names and deepseek4.* metadata.\n"
      "Reads the official release layout (FP8 E4M3 weights with 128x128 E8M0 scales, FP4 routed experts with\n"
      "per-32 E8M0 scales, BF16/F32 others) and HF transformers' DeepseekV4 state dicts (in-memory names with\n"
      "fused gate_up experts, or save_pretrained's upstream names), one file or a sharded directory.\n"
      "Hyperparameters come from config.json. FP4 experts become MXFP4 without requantizing (lossless)."};
  cli.add_option("source", source, "checkpoint: a .safetensors file or a directory (model.safetensors.index.json or *.safetensors)")
      ->required();
  cli.add_option("-o,--out", output, "output GGUF file (written as <out>.partial, renamed when complete)");
  cli.add_option("--mtp-out", mtp_out,
                 "also write ds4's MTP sidecar GGUF (mtp.0.* tensors, architecture deepseek4_mtp_support) from the "
                 "checkpoint's mtp.0.* tensors; without it they are skipped");
  cli.add_option("--config", config, "config.json to read (default: config.json beside the checkpoint)");
  cli.add_option("--dense", dense,
                 "type of the large projections ds4 stores as Q8_0 (attention, shared experts, output head): "
                 "q8_0 (default), f16, bf16, f32");
  cli.add_option("--aux", aux,
                 "type of the tensors ds4 stores as F16 (embedding, hyper-connection, router, compressor, "
                 "indexer): f16 (default), bf16, f32");
  cli.add_option("--experts", experts,
                 "routed expert type: mxfp4 (default for FP4 sources: a lossless repack; from float sources it "
                 "quantizes, lossy), q8_0, f16, bf16, f32 (default for float sources: the --dense type)");
  cli.add_option("--vocab", vocab,
                 "tokenizer section: auto (tokenizer.json from --tokenizer-json or beside the checkpoint, else "
                 "none), json (exactly --tokenizer-json), deepseek (DS4's vocabulary from a DeepSeek-V3 "
                 "tokenizer.json, default the oracle's), bytes (byte tokens, for tiny models), none; padded to "
                 "vocab_size")
      ->default_val(vocab)
      ->check(CLI::IsMember({"auto", "json", "deepseek", "bytes", "none"}));
  cli.add_option("--tokenizer-json", tokenizer_json, "tokenizer.json for --vocab auto|json|deepseek");
  cli.add_option("--name", req.options.model_name, "general.name to record")->default_val(req.options.model_name);
  cli.add_flag("--dry-run", dry_run, "check the checkpoint and print the tensor plan; write nothing");
  cli.add_flag("-q,--quiet", quiet, "no progress on stderr");
  if (auto rc = app::parse(cli, argc, argv)) return *rc;
  if (output.empty() && !dry_run) throw app::usage_error("--out is required (or use --dry-run)");
  if (!dry_run) app::check_output_path("--out", output);
  app::check_output_path("--mtp-out", mtp_out);
  {
    req.source = source;
    req.output = output;
    if (!config.empty()) req.config = config;
    if (!mtp_out.empty()) req.mtp_output = mtp_out;
    const auto type_flag = [](const char* flag, const std::string& text, convert::tensor_class cls) {
      try {
        return convert::parse_output_type(text, cls);
      } catch (const std::exception& e) {
        throw app::usage_error(std::string(flag) + ": " + e.what());
      }
    };
    if (!dense.empty()) req.options.dense = type_flag("--dense", dense, convert::tensor_class::dense);
    req.options.aux = type_flag("--aux", aux, convert::tensor_class::aux);
    if (!experts.empty()) req.options.experts = type_flag("--experts", experts, convert::tensor_class::routed);
    req.options.vocab.source = convert::parse_vocab_source(vocab);
    if (!tokenizer_json.empty()) req.options.vocab.tokenizer_json = tokenizer_json;
    req.dry_run = dry_run;
    app::step("converting " + source,
              [&] { convert::convert_checkpoint(req, quiet ? nullptr : &std::cerr, dry_run ? &std::cout : nullptr); });
  }
  return 0;
}

}  // namespace

ORDO_SUBCOMMAND(convert, "convert a DeepSeek V4 HF safetensors checkpoint (official FP8/FP4 or HF transformers) to GGUF",
                run_convert);
