#pragma once
// `pperf prices import`: providers' own price files (read offline) into a pperf price table,
// with each file's name, sha256, publication date and the import date recorded. Pure functions
// of the files' text: nothing is fetched. Every mistake in a file is an InputError naming the
// file and the place (JSON pointer, or CSV line and column). docs/prices.md describes the formats.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "pricing/price_table.h"

namespace pperf {

enum class ImportFormat { aws_offer, aws_spot_history, skypilot, spot_advisor };
/// "aws-offer" | "aws-spot-history" | "skypilot" | "spot-advisor"; nullopt otherwise.
std::optional<ImportFormat> parse_import_format(const std::string& name);
std::string to_string(ImportFormat format);

/// A file to import: the name recorded (as given) and its bytes.
struct ImportFile {
  std::string path;
  std::string text;
};

struct ImportOptions {
  ImportFormat format = ImportFormat::aws_offer;
  std::vector<std::string> regions;          // import only these (empty: every region in the files)
  /// The source's publication date when the file records none (SkyPilot, Spot Advisor):
  /// YYYY-MM-DD or "unknown". Ignored for formats that carry their own date.
  std::string published;
  std::string imported;                      // YYYY-MM-DD (the import date)
  std::string sagemaker_component = "Training";  // AmazonSageMaker offers: which component's prices
  std::string row_source;                    // each imported row's `source` ("" for none)
  /// Refuse a file at its first row pperf cannot use (today's behaviour before catalogs were read
  /// whole), instead of skipping such rows and counting them.
  bool strict = false;
};

/// What an import did beside the table: each skipped or joined kind is one line, also recorded in
/// the table's sources[].notes.
struct ImportReport {
  std::vector<std::string> warnings;  // "FILE: skipped 3 rows with neither Price nor SpotPrice, e.g. line 50: ..."
};

/// Adds the files' prices to `table` (an empty table, or a base to overlay): offers set specs and
/// on-demand prices; spot history sets spot min/median/max per type and per zone over its
/// window; the SkyPilot catalog sets specs, on-demand and spot (min..max across zones, each
/// zone's price). Appends one TableSource per file and sets table.published to the oldest
/// publication date of its sources ("" when any is unknown). Rows a file holds but pperf cannot
/// use (unpriced, malformed, the wrong number of fields) are skipped and counted unless
/// options.strict; a file that is not of the format, or holds no usable row, or a --region that no
/// file holds, throws InputError.
ImportReport import_prices(PriceTable& table, const std::vector<ImportFile>& files, const ImportOptions& options);

/// Link figures from a file written by hand from the provider's published specifications
/// ({"source": TEXT, "published": DATE|null, "types": {TYPE: {"gbps": N, "basis": TEXT}}}) onto
/// every row whose type is TYPE, or "ml." + TYPE (SageMaker's instances are EC2's), over what an
/// offer file gave; recorded as a source of format "links". Rows left without a figure are named
/// in that source's notes. InputError naming the file and key for a figure <= 0 or no basis.
void apply_link_figures(PriceTable& table, const ImportFile& file, const std::string& imported);

/// The table as a schema-version-2 file (deterministic: the same table gives the same bytes).
std::string price_table_json(const PriceTable& table);

/// Spot Instance Advisor data files -> an interruption table (pricing/interruption_table.h's
/// format) for Linux; `name`, `source` and `notes` are its provenance text.
std::string import_spot_advisor(const std::vector<ImportFile>& files, const ImportOptions& options,
                                const std::string& name, const std::string& source, const std::string& notes);

/// One field of a CSV row, with its 1-based line and column for error messages.
struct CsvField {
  std::string text;
  size_t line = 0, column = 0;
};

/// RFC 4180 CSV (quoted fields, "" inside quotes, CRLF or LF), one row at a time: a catalog of
/// millions of rows is never held as fields. A UTF-8 byte-order mark at the start is skipped; an
/// unterminated quote is an InputError naming `file`. `text` must outlive the reader. `next`
/// returns false after the last row.
class CsvReader {
 public:
  CsvReader(const std::string& text, std::string file);
  bool next(std::vector<CsvField>& row);

 private:
  const std::string& text_;
  std::string file_;
  size_t i_ = 0, line_ = 1, column_ = 1;
};

}  // namespace pperf
