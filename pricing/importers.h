#pragma once
// The importers behind `pperf prices import` (price_import.h is the interface), one per format
// and file: import_aws_offer.cpp, import_spot_history.cpp, import_skypilot.cpp (and the Spot
// Advisor's interruption table, import_spot_advisor.cpp); and the reading every format shares.
// Internal to pricing/.
#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pricing/price_import.h"
#include "pricing/price_table.h"

namespace pperf {

class JsonView;

namespace importers {

/// A plain decimal ("32.7726000000", "8", "8.0"): what providers write prices and counts as.
std::optional<double> decimal(const std::string& s);
/// `v` as a decimal string > 0; else v.fail naming `what`.
double positive_decimal_at(const JsonView& v, const std::string& what);
/// "1152 GiB", "1,952 GiB", "16 GB", "40": the number before the unit.
std::optional<double> quantity(std::string s);
bool is_whole(double x);
std::string base_name(const std::string& path);
/// YYYY-MM-DD, a real date.
bool valid_date(const std::string& s);
/// Whether --region asks for `region` (no --region: every region).
bool wanted(const ImportOptions& o, const std::string& region);
/// The publication date of a source that records none: the --published the user gave.
std::string declared_published(const ImportOptions& o, const ImportFile& f);
/// Every --region must be in some file: a typo among several would otherwise vanish silently.
void require_regions_found(const ImportOptions& o, const std::set<std::string>& found);
/// The table's row of `type` in `region` (made when new), its source set from options.
InstanceSpec& row_for(PriceTable& table, const std::string& region, const std::string& type, const ImportOptions& o);
/// The file's text as JSON; a syntax error is an InputError naming the file.
nlohmann::json parse_json(const ImportFile& f);
double median_of(std::vector<double> v);

/// An AWS Price List offer file (AmazonEC2 or AmazonSageMaker; bulk, or `aws pricing
/// get-products` output) into `table`: specs and the on-demand price in effect on the import
/// date. Returns the file's publication date; what it left out goes to `notes`.
std::string import_aws_offer(PriceTable& table, const ImportFile& f, const ImportOptions& o,
                             std::set<std::string>& regions_in_files, std::vector<std::string>& notes);

/// `aws ec2 describe-spot-price-history` output into the base table's rows: spot min, median and
/// max per type and per zone over the window. Returns the date of its latest price.
std::string import_spot_history(PriceTable& table, const ImportFile& f, const ImportOptions& o,
                                std::set<std::string>& regions_in_files);

struct SkyPilotImport {
  std::string published;
  std::vector<std::string> notes;
};

/// A SkyPilot catalog (vms.csv) into `table`: specs, on-demand, spot min..max across zones and
/// each zone's price; rows pperf cannot use are skipped and counted in the notes (refused under
/// options.strict).
SkyPilotImport import_skypilot(PriceTable& table, const ImportFile& f, const ImportOptions& o,
                               std::set<std::string>& regions_in_files);

}  // namespace importers
}  // namespace pperf
