// libFuzzer target: the price-table reader (load_price_table) and a quote for every instance
// of an accepted table in both markets.
#include <cstdint>
#include <exception>

#include "fuzz_input_file.h"
#include "pricing/price_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = pperf::fuzz::write_input("price_table", data, size);
  try {
    const pperf::PriceTable table = pperf::load_price_table(path);
    for (const auto& type : table.types())
      if (const pperf::InstanceSpec* spec = table.find(type))
        for (auto market : {pperf::Market::on_demand, pperf::Market::spot}) (void)pperf::quote(*spec, market);
  } catch (const std::exception&) {
  }
  return 0;
}
