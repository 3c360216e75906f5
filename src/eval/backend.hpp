/// The evaluation backend interface of `ordo eval`: a model loaded for one sequence that consumes
/// tokens one position at a time and returns the logits predicting the next token. The reference
/// (`ref`) is the first implementation; the exact CPU executor and the GPU runtime plug in here.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ordo::eval {

/// Switches that exist only in the reference backend (ds4-model.md §14: the product path always
/// applies the simulations; the reference may drop them to compare with llama.cpp / HF).
enum class ref_sims { on, off };

struct backend_options {
  std::filesystem::path model;
  std::filesystem::path mtp_model;  // antirez/ds4 MTP sidecar, optional
  ref_sims sims = ref_sims::on;
};

class backend {
 public:
  virtual ~backend() = default;
  virtual std::string_view name() const = 0;
  virtual uint32_t n_vocab() const = 0;
  /// Feeds `token` at the next position; returns the logits [n_vocab] for the following one.
  virtual std::vector<float> step(int32_t token) = 0;
};

/// Names accepted by make_backend, for help texts.
std::vector<std::string> backend_names();

/// Opens `kind` ("ref", ...) on options.model; throws std::runtime_error naming the backend or
/// the file at fault (an unknown or not-yet-built backend lists the available ones).
std::unique_ptr<backend> make_backend(std::string_view kind, const backend_options& options);

}  // namespace ordo::eval
