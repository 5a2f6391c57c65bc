// The Shutdown RPC's client (data_service.h: request_shutdown).
#include <grpcpp/grpcpp.h>

#include <chrono>

#include "src/dataservice/data_service.grpc.pb.h"
#include "src/dataservice/data_service.h"

namespace pperf {

std::optional<std::string> request_shutdown(const std::string& endpoint, const std::string& token, const std::string& tls_ca_pem,
                             double deadline_s) {
  auto stub = dataservice::DataService::NewStub(open_data_channel(endpoint, tls_ca_pem));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(deadline_s)));
  dataservice::ShutdownRequest request;
  request.set_token(token);
  dataservice::ShutdownReply reply;
  const grpc::Status status = stub->Shutdown(&context, request, &reply);
  if (status.ok()) return std::nullopt;
  return status.error_message();
}

}  // namespace pperf
