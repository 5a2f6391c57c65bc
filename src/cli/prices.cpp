// `pperf prices import|diff`: price tables from providers' own files (offline), and what changed
// between two tables.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "src/cli/cli.h"
#include "src/core/atomic_file.h"
#include "src/core/input_error.h"
#include "src/core/utc_time.h"
#include "pricing/price_import.h"
#include "pricing/price_table.h"

namespace pperf::cli {

namespace {

const char* kPricesUsage =
    "pperf prices import --format aws-offer|aws-spot-history|skypilot|spot-advisor\n"
    "                    FILE... --out TABLE.json [--region R]... [--base TABLE.json]\n"
    "                    [--published YYYY-MM-DD|unknown] [--imported YYYY-MM-DD]\n"
    "                    [--name N] [--provider P] [--service S] [--source TEXT]\n"
    "                    [--notes TEXT] [--row-source TEXT] [--links FILE]\n"
    "                    [--component Training] [--strict]\n"
    "    a price table (or, from spot-advisor, an interruption table) from files you\n"
    "    downloaded (docs/prices.md)\n"
    "pperf prices diff OLD NEW\n"
    "    every on-demand and spot price that changed, appeared or disappeared between\n"
    "    two tables\n";

std::string text_or_empty(const Parsed& p, const std::string& flag) { return p.has(flag) ? p.string(flag) : ""; }

int prices_import(const std::vector<std::string>& args) {
  po::options_description options("pperf prices import options");
  options.add_options()("help,h", "show this help")(
      "format", po::value<std::string>()->required(), "aws-offer | aws-spot-history | skypilot | spot-advisor")(
      "files", po::value<std::vector<std::string>>()->required(), "the provider's files (FILE...)")(
      "out", po::value<std::string>()->required(), "the table to write (atomically)")(
      "region", po::value<std::vector<std::string>>(), "import only this region (repeat for several); default every region")(
      "base", po::value<std::string>(), "start from this table (v1 or v2) and overlay what the files give")(
      "published", po::value<std::string>(),
      "the files' publication date when they record none (skypilot, spot-advisor): YYYY-MM-DD or unknown")(
      "imported", po::value<std::string>(), "the import date recorded (default today, UTC)")(
      "name", po::value<std::string>(), "the table's name (default: the base's, else --out's file name)")(
      "provider", po::value<std::string>(), "provider, e.g. aws, gcp (default: the base's, else aws for aws-* formats)")(
      "service", po::value<std::string>(), "service, e.g. ec2, sagemaker-training")(
      "source", po::value<std::string>(), "what the figures are, in words (default: the formats and files)")(
      "notes", po::value<std::string>(), "notes kept in the table")(
      "row-source", po::value<std::string>(), "a source line recorded on every row these files price")(
      "links", po::value<std::string>(),
      "link figures (Gbit/s, with their basis) from the provider's instance specifications, set on the rows they name")(
      "component", po::value<std::string>()->default_value("Training"),
      "AmazonSageMaker offers: the component priced (Training, Hosting, ...)")(
      "strict", "refuse a file at its first row pperf cannot use, instead of skipping such rows and counting them");
  po::positional_options_description positional;
  positional.add("files", -1);
  Parsed p = parse("prices import", options, args, &positional);
  if (p.help) return std::cout << kPricesUsage << options, kExitOk;

  ImportOptions o;
  const std::string format = p.string("format");
  const auto parsed_format = parse_import_format(format);
  if (!parsed_format)
    throw InputError("pperf prices import", "--format",
                     "unknown format '" + format + "': expected aws-offer, aws-spot-history, skypilot or spot-advisor" +
                         did_you_mean(format, {"aws-offer", "aws-spot-history", "skypilot", "spot-advisor"}));
  o.format = *parsed_format;
  if (p.has("region")) o.regions = p.vars["region"].as<std::vector<std::string>>();
  o.published = text_or_empty(p, "published");
  o.imported = p.has("imported") ? p.string("imported") : utc_today();
  o.sagemaker_component = p.string("component");
  o.row_source = text_or_empty(p, "row-source");
  o.strict = p.has("strict");

  std::vector<ImportFile> files;
  for (const auto& path : p.vars["files"].as<std::vector<std::string>>()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path, "", "no such file");
    files.push_back({path, read_text_file(path)});
  }
  const std::string out = p.string("out");
  const std::string stem = std::filesystem::path(out).stem().string();
  std::string names;
  for (const auto& f : files) names += (names.empty() ? "" : ", ") + std::filesystem::path(f.path).filename().string();
  const std::string default_source = format + " file" + (files.size() > 1 ? "s " : " ") + names;

  if (o.format == ImportFormat::spot_advisor) {
    if (p.has("base")) throw InputError("pperf prices import", "--base", "spot-advisor files make a whole interruption table: no --base");
    const std::string text = import_spot_advisor(files, o, p.has("name") ? p.string("name") : stem,
                                                 p.has("source") ? p.string("source") : default_source,
                                                 text_or_empty(p, "notes"));
    write_file_atomically(out, text);
    std::cout << "interruption table " << out << " from " << names << "\n";
    return kExitOk;
  }

  PriceTable table;
  table.currency = "USD";
  if (p.has("base")) {
    try {
      table = read_price_table(p.string("base"));
    } catch (const InputError& e) {
      throw InputError("--base", "", e.what());
    }
  } else {
    table.name = stem;
    table.source = default_source;
    if (format.rfind("aws-", 0) == 0) table.provider = "aws";
  }
  if (p.has("name")) table.name = p.string("name");
  if (p.has("provider")) table.provider = p.string("provider");
  if (p.has("service")) table.service = p.string("service");
  if (p.has("source")) table.source = p.string("source");
  if (p.has("notes")) table.notes = p.string("notes");
  const ImportReport report = import_prices(table, files, o);
  if (p.has("links")) {
    const std::string links = p.string("links");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(links, ec)) throw InputError("--links", "", "no such file: " + links);
    apply_link_figures(table, {links, read_text_file(links)}, o.imported);
  }
  files = {};  // the files' text is not needed to write the table: its memory goes before the table's JSON
  for (const auto& warning : report.warnings) std::cerr << "pperf prices import: warning: " << warning << "\n";
  write_file_atomically(out, price_table_json(table));
  size_t rows = 0;
  for (const auto& [_, types] : table.regions) rows += types.size();
  std::cout << fmt::format("price table {} ({}): {} instance types in {} region(s), published {}; sources: {}\n", table.name,
                           out, rows, table.regions.size(), table.published.empty() ? "unknown" : table.published, names);
  return kExitOk;
}

std::string usd(const std::optional<double>& v) { return v ? fmt::format("{:g} USD/h", *v) : "-"; }

int prices_diff(const std::vector<std::string>& args) {
  po::options_description options("pperf prices diff OLD NEW");
  options.add_options()("help,h", "show this help")("tables", po::value<std::vector<std::string>>()->required(),
                                                   "OLD NEW: price table names or paths");
  po::positional_options_description positional;
  positional.add("tables", -1);
  Parsed p = parse("prices diff", options, args, &positional);
  if (p.help) return std::cout << options, kExitOk;
  const auto tables = p.vars["tables"].as<std::vector<std::string>>();
  if (tables.size() != 2) throw InputError("pperf prices diff", "", "expected two tables, OLD NEW");
  const PriceTable before = read_price_table(tables[0]), after = read_price_table(tables[1]);
  auto label = [](const PriceTable& t) {
    return fmt::format("{} (published {}, retrieved {}, sha256 {})", t.name, t.published.empty() ? "unknown" : t.published,
                       t.retrieved, t.sha256.substr(0, 12));
  };
  std::cout << "old: " << label(before) << "\nnew: " << label(after) << "\n";
  const auto changes = diff_tables(before, after);
  if (changes.empty()) {
    std::cout << "no price changed\n";
    return kExitOk;
  }
  std::cout << fmt::format("{:<14} {:<20} {:<12} {:>16} {:>16} {:>9}\n", "region", "type", "price", "old", "new", "change");
  for (const auto& c : changes) {
    const std::string pct = c.before && c.after ? fmt::format("{:+.1f} %", (*c.after / *c.before - 1) * 100)
                            : c.after           ? "added"
                                                : "removed";
    std::cout << fmt::format("{:<14} {:<20} {:<12} {:>16} {:>16} {:>9}\n", c.region, c.type, c.what, usd(c.before), usd(c.after), pct);
  }
  std::cout << changes.size() << " price(s) changed\n";
  return kExitOk;
}

}  // namespace

int command_prices(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kPricesUsage;
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "import") return prices_import(rest);
  if (args[0] == "diff") return prices_diff(rest);
  throw InputError("pperf prices", "", "unknown subcommand '" + args[0] + "': expected import or diff" +
                                           did_you_mean(args[0], {"import", "diff"}));
}

}  // namespace pperf::cli
