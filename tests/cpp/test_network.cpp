// The network evaluator (search/network.h) from C++: the shipped network loads and plays a legal
// move under eval=net; bad files raise SearchError. tests/python/test_learn.py compares the
// forward pass with PyTorch's and tries many more bad files.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "engine/config.h"
#include "engine/game.h"
#include "search/mcts.h"
#include "search/network.h"

namespace carc {
namespace {

State first_decision() {
  Config config;
  config.seed = 11;
  State s(config);
  s.apply_unchecked(s.sample_chance());
  return s;
}

TEST(Network, ShippedNetworkPlaysALegalMove) {
  const auto network = load_network("");
  EXPECT_EQ(network->players(), 2);
  EXPECT_EQ(load_network(""), network);  // loaded once, shared
  MctsAgent agent(parse_mcts_options("eval=net,iters=50"));
  EXPECT_EQ(agent.config().rollout.prior, PriorKind::Net);  // eval=net brings prior=net
  const State s = first_decision();
  Rng rng(1);
  EXPECT_TRUE(s.is_legal(agent.choose(s, rng)));
  EXPECT_EQ(agent.last_result().iterations, 50u);
}

TEST(Network, TwoSearchThreadsShareOneNetwork) {
  // Tree parallelism: both threads evaluate leaves with the one shared network (CI runs this
  // under ThreadSanitizer too).
  MctsAgent agent(parse_mcts_options("eval=net,iters=100,threads=2"));
  const State s = first_decision();
  Rng rng(2);
  EXPECT_TRUE(s.is_legal(agent.choose(s, rng)));
  EXPECT_GE(agent.last_result().iterations, 100u);
}

TEST(Network, ExpandingAtTheFirstVisitTakesOneForwardPassANode) {
  // expand=0: a node's priors and its value are asked for together and answered from one pass;
  // with expand=1 a node is valued at its first visit and expanded (priors) at its second.
  auto passes_per_iteration = [](const std::string& options) {
    MctsConfig config = parse_mcts_options(options + ",eval=net,prior=net,iters=300,reuse=0");
    auto evaluator = std::make_shared<const NetworkEvaluator>(config.rollout);
    config.evaluator = evaluator;
    Mcts mcts(config);
    const SearchResult result = mcts.search(first_decision(), 5);
    return double(evaluator->forward_passes() - 1) / double(result.iterations);  // - the root's priors
  };
  const double first_visit = passes_per_iteration("expand=0"), second_visit = passes_per_iteration("expand=1");
  EXPECT_LE(first_visit, 1.0);  // chance nodes and terminals need no pass of their own
  EXPECT_GT(first_visit, 0.5);
  EXPECT_GT(second_visit, first_visit + 0.1) << "expand=0: " << first_visit;  // leaves visited twice: two passes
}

TEST(Network, PriorsAreADistributionOverTheLegalActions) {
  RolloutConfig config;
  config.prior = PriorKind::Net;
  const NetworkEvaluator evaluator(config);
  const State s = first_decision();
  Action actions[kMaxActions];
  float priors[kMaxActions];
  const int n = s.legal_actions(actions);
  evaluator.priors(s, actions, n, priors);
  float sum = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_GE(priors[i], 0.0f);
    sum += priors[i];
  }
  EXPECT_NEAR(sum, 1.0f, 1e-4);
}

TEST(Network, BadFilesThrowSearchError) {
  EXPECT_THROW(Network("/nonexistent/network.carcnet"), SearchError);
  const std::string path = ::testing::TempDir() + "carc_bad.carcnet";
  {
    std::ofstream(path, std::ios::binary) << "CARCNET";  // shorter than the fixed prefix
  }
  EXPECT_THROW(Network{path}, SearchError);
  {
    std::ifstream in(default_network_path(), std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(path, std::ios::binary) << data.substr(0, data.size() - 3);  // a truncated tensor
  }
  EXPECT_THROW(Network{path}, SearchError);
  std::remove(path.c_str());
  EXPECT_THROW(Mcts(parse_mcts_options("eval=net,net=/nonexistent.carcnet")), SearchError);
}

}  // namespace
}  // namespace carc
