#include "metrics/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace nodescope::metrics {
namespace {

int Connect(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string Get(uint16_t port, const std::string& path, const std::string& headers = "") {
  const int fd = Connect(port);
  if (fd < 0) return "";
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n";
  (void)!write(fd, req.data(), req.size());
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

TEST(ListenAddress, Parses) {
  EXPECT_EQ(ParseListenAddress("9400")->ToString(), "127.0.0.1:9400");
  EXPECT_EQ(ParseListenAddress("0.0.0.0:9400")->ToString(), "0.0.0.0:9400");
  EXPECT_EQ(ParseListenAddress("[::1]:9400")->ToString(), "[::1]:9400");
  EXPECT_TRUE(ParseListenAddress("./m.sock")->unix_socket);
  EXPECT_EQ(ParseListenAddress("unix:m.sock")->path, "m.sock");
  EXPECT_FALSE(ParseListenAddress("host.example:9400").ok());
  EXPECT_FALSE(ParseListenAddress("70000").ok());
  EXPECT_FALSE(ParseListenAddress("").ok());
}

TEST(HttpServer, ServesAndSurvivesIdleAndManyClients) {
  HttpServer s([](bool om) { return std::string(om ? "a_total 1\n# EOF\n" : "a_total 1\n"); });
  ASSERT_TRUE(s.Listen(*ParseListenAddress("127.0.0.1:0")).ok());
  s.Start();
  // A client that connects and never sends, and one that sends and never reads.
  const int idle = Connect(s.port());
  const int deaf = Connect(s.port());
  const std::string req = "GET /metrics HTTP/1.1\r\n\r\n";
  (void)!write(deaf, req.data(), req.size());
  std::vector<std::thread> ts;
  std::vector<std::string> got(100);
  for (int i = 0; i < 100; ++i) ts.emplace_back([&, i] { got[i] = Get(s.port(), "/metrics"); });
  for (auto& t : ts) t.join();
  for (const std::string& g : got) {
    EXPECT_NE(g.find("200 OK"), std::string::npos);
    EXPECT_NE(g.find("a_total 1\n"), std::string::npos);
  }
  EXPECT_NE(Get(s.port(), "/nope").find("404"), std::string::npos);
  // OpenMetrics when the scraper prefers it (Prometheus' default Accept), else the text format.
  const std::string om = Get(s.port(), "/metrics",
                             "Accept: application/openmetrics-text;version=1.0.0,text/plain;"
                             "version=0.0.4;q=0.5\r\n");
  EXPECT_NE(om.find("Content-Type: application/openmetrics-text; version=1.0.0"),
            std::string::npos);
  EXPECT_NE(om.find("# EOF\n"), std::string::npos);
  const std::string text = Get(s.port(), "/metrics", "accept: text/plain\r\n");
  EXPECT_NE(text.find("Content-Type: text/plain; version=0.0.4"), std::string::npos);
  EXPECT_EQ(text.find("# EOF"), std::string::npos);
  EXPECT_GE(s.scrapes(), 100u);
  EXPECT_GE(s.renders(), s.scrapes());          // the deaf client's body was made, never answered
  EXPECT_EQ(s.answered_render(), s.renders());  // the last body made was answered
  // A second server on the same port is refused, naming it.
  HttpServer t([](bool) { return std::string(); });
  Status taken = t.Listen(*ParseListenAddress("127.0.0.1:" + std::to_string(s.port())));
  EXPECT_FALSE(taken.ok());
  EXPECT_NE(taken.ToString().find("in use"), std::string::npos) << taken.ToString();
  s.Stop();
  close(idle);
  close(deaf);
}

}  // namespace
}  // namespace nodescope::metrics
