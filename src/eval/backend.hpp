/// The evaluation backend interface of `ordo eval`: a model loaded for one sequence that consumes
/// tokens one position at a time and returns the logits predicting the next token. The reference
/// (`ref`) is the first implementation; the exact CPU executor and the GPU runtime plug in here,
/// each as one row of built_backends() (backend.cpp). Which one `--backend auto` picks is
/// backend_selection.hpp's business.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/runtime/speculative.hpp"

namespace ordo::eval {

/// Switches that exist only in the reference backend (ds4-model.md §14: the product path always
/// applies the simulations; the reference may drop them to compare with llama.cpp / HF).
enum class ref_sims { on, off };

struct backend_options {
  std::filesystem::path model;
  std::filesystem::path mtp_model;  // antirez/ds4 MTP sidecar, optional
  ref_sims sims = ref_sims::on;
  /// Prefill chunk (`ordo eval --chunk`): how many prompt rows share a weight pass; 0: the largest
  /// the backend's tiers allow. A backend without chunked prefill ignores it (chunked_prefill()).
  std::size_t prefill_chunk = 0;
};

/// Which logits prefill returns.
enum class logits_rows { last, every };

class backend {
 public:
  virtual ~backend() = default;
  virtual std::string_view name() const = 0;
  virtual uint32_t n_vocab() const = 0;
  /// Feeds `token` at the next position; returns the logits [n_vocab] for the following one.
  virtual std::vector<float> step(int32_t token) = 0;
  /// Whether prefill() feeds prompt rows in chunks of backend_options::prefill_chunk. The default
  /// prefill feeds one token at a time (step), so a backend that keeps it says false.
  virtual bool chunked_prefill() const { return false; }
  /// Feeds `tokens` at the next positions (the same logits as stepping them one by one, E3);
  /// returns the logits after each token [tokens.size()][n_vocab] (`every`) or after the last one
  /// [n_vocab] (`last`; empty for no tokens).
  virtual std::vector<float> prefill(std::span<const int32_t> tokens, logits_rows rows);
  /// Starts a new sequence at position 0 on the loaded weights (`ordo chat` when its state no
  /// longer holds a prefix of the conversation). false: not supported, the caller opens a fresh
  /// backend (a GPU backend should support it: reopening would upload the weights again).
  virtual bool restart() { return false; }
  /// Exact MTP speculative decoding on this sequence (runtime/speculative.hpp), called before
  /// anything is fed: from then on step() and prefill() feed through the returned decoder (the
  /// MTP ring follows every position, D2) and its round() commits rows. Null when the backend has
  /// no speculative path or the model no MTP block (`why` says which).
  virtual runtime::speculative_decoder* speculate(runtime::token_chooser choose, const runtime::spec_options& o,
                                                  std::string& why) {
    (void)choose, (void)o;
    why = "the " + std::string(name()) + " backend has no speculative decoding";
    return nullptr;
  }
};

/// One backend this build can make: a row of built_backends().
struct backend_kind {
  std::string_view name;     // "ref", "cpu", "gpu"
  std::string_view summary;  // one phrase for help texts
  /// Whether the hardware it needs is present (a GPU backend asks the driver for a device);
  /// null: always usable.
  bool (*device_present)() = nullptr;
  std::unique_ptr<backend> (*make)(const backend_options&) = nullptr;
};

/// The backends compiled into this build (their order means nothing: backend_selection.hpp
/// states auto's preference).
const std::vector<backend_kind>& built_backends();

/// Names accepted by make_backend, for help texts.
std::vector<std::string> backend_names();

/// Opens `kind` ("ref", ...: a built backend's name, not "auto") on options.model; throws
/// std::runtime_error naming the backend or the file at fault (an unknown or not-yet-built
/// backend lists the available ones).
std::unique_ptr<backend> make_backend(std::string_view kind, const backend_options& options);

}  // namespace ordo::eval
