"""networkx's own tests, run through the grotto backend the way networkx
documents for backends (``NETWORKX_TEST_BACKEND=grotto
NETWORKX_FALLBACK_TO_NX=True``): every test module that exercises a
function the backend implements, listed below, must pass whole. A
function added to the backend without its networkx tests here fails
``test_every_implemented_function_has_its_networkx_tests``."""

import os
import subprocess
import sys

from grotto.nx import get_info

# Each implemented function -> the networkx test modules that exercise it.
MODULES = {
    "pagerank": ["networkx.algorithms.link_analysis.tests.test_pagerank"],
    "connected_components": ["networkx.algorithms.components.tests.test_connected"],
    "number_connected_components": ["networkx.algorithms.components.tests.test_connected"],
    "is_connected": ["networkx.algorithms.components.tests.test_connected"],
    "node_connected_component": ["networkx.algorithms.components.tests.test_connected"],
    "weakly_connected_components": ["networkx.algorithms.components.tests.test_weakly_connected"],
    "number_weakly_connected_components": ["networkx.algorithms.components.tests.test_weakly_connected"],
    "is_weakly_connected": ["networkx.algorithms.components.tests.test_weakly_connected"],
    "single_source_shortest_path_length": ["networkx.algorithms.shortest_paths.tests.test_unweighted"],
    "descendants": ["networkx.algorithms.tests.test_dag"],
    "has_path": ["networkx.algorithms.shortest_paths.tests.test_generic"],
    "core_number": ["networkx.algorithms.tests.test_core", "networkx.algorithms.approximation.tests.test_kcomponents"],
    "bfs_edges": ["networkx.algorithms.traversal.tests.test_bfs"],
    "bfs_tree": ["networkx.algorithms.traversal.tests.test_bfs"],
    "bfs_predecessors": ["networkx.algorithms.traversal.tests.test_bfs"],
    "bfs_successors": ["networkx.algorithms.traversal.tests.test_bfs"],
    "single_source_dijkstra_path_length": ["networkx.algorithms.shortest_paths.tests.test_weighted"],
    "triangles": ["networkx.algorithms.tests.test_cluster"],
    "clustering": ["networkx.algorithms.tests.test_cluster"],
    "average_clustering": ["networkx.algorithms.tests.test_cluster"],
    "transitivity": ["networkx.algorithms.tests.test_cluster"],
    "strongly_connected_components": ["networkx.algorithms.components.tests.test_strongly_connected"],
    "number_strongly_connected_components": ["networkx.algorithms.components.tests.test_strongly_connected"],
    "is_strongly_connected": ["networkx.algorithms.components.tests.test_strongly_connected"],
    "betweenness_centrality": ["networkx.algorithms.centrality.tests.test_betweenness_centrality"],
    "bfs_layers": ["networkx.algorithms.traversal.tests.test_bfs"],
    "shortest_path_length": ["networkx.algorithms.shortest_paths.tests.test_generic"],
    "dijkstra_path_length": ["networkx.algorithms.shortest_paths.tests.test_weighted"],
    "shortest_path": ["networkx.algorithms.shortest_paths.tests.test_generic"],
    "bidirectional_shortest_path": ["networkx.algorithms.shortest_paths.tests.test_unweighted"],
    "single_source_shortest_path": ["networkx.algorithms.shortest_paths.tests.test_unweighted"],
    "bidirectional_dijkstra": ["networkx.algorithms.shortest_paths.tests.test_weighted"],
    "dijkstra_path": ["networkx.algorithms.shortest_paths.tests.test_weighted"],
    "single_source_dijkstra": ["networkx.algorithms.shortest_paths.tests.test_weighted"],
    "eccentricity": ["networkx.algorithms.tests.test_distance_measures"],
    "ego_graph": ["networkx.generators.tests.test_ego"],
    "degree_centrality": ["networkx.algorithms.centrality.tests.test_degree_centrality"],
    "in_degree_centrality": ["networkx.algorithms.centrality.tests.test_degree_centrality"],
    "out_degree_centrality": ["networkx.algorithms.centrality.tests.test_degree_centrality"],
    "eigenvector_centrality": ["networkx.algorithms.centrality.tests.test_eigenvector_centrality"],
    "katz_centrality": ["networkx.algorithms.centrality.tests.test_katz_centrality"],
    "jaccard_coefficient": ["networkx.algorithms.tests.test_link_prediction"],
    "adamic_adar_index": ["networkx.algorithms.tests.test_link_prediction"],
    "resource_allocation_index": ["networkx.algorithms.tests.test_link_prediction"],
    "preferential_attachment": ["networkx.algorithms.tests.test_link_prediction"],
    "diameter": ["networkx.algorithms.tests.test_distance_measures"],
    "radius": ["networkx.algorithms.tests.test_distance_measures"],
    "k_core": ["networkx.algorithms.tests.test_core", "networkx.algorithms.approximation.tests.test_kcomponents"],
    "k_shell": ["networkx.algorithms.tests.test_core"],
    "k_crust": ["networkx.algorithms.tests.test_core"],
    "k_corona": ["networkx.algorithms.tests.test_core"],
    "maximal_independent_set": ["networkx.algorithms.tests.test_mis"],
    "louvain_communities": ["networkx.algorithms.community.tests.test_louvain"],
    "louvain_partitions": ["networkx.algorithms.community.tests.test_louvain"],
    "leiden_communities": ["networkx.algorithms.community.tests.test_leiden"],
    "leiden_partitions": ["networkx.algorithms.community.tests.test_leiden"],
    "modularity": ["networkx.algorithms.community.tests.test_quality",
                   "networkx.algorithms.community.tests.test_louvain"],
}


def test_every_implemented_function_has_its_networkx_tests():
    assert set(get_info()["functions"]) == set(MODULES)


def test_networkx_s_own_tests_pass_through_the_backend(tmp_path):
    modules = sorted({m for ms in MODULES.values() for m in ms})
    env = dict(os.environ, NETWORKX_TEST_BACKEND="grotto", NETWORKX_FALLBACK_TO_NX="True")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs", *modules],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900,
    )
    tail = (r.stdout + r.stderr)[-4000:]
    assert r.returncode == 0, tail
    assert " passed" in tail and "failed" not in tail and " error" not in tail, tail
