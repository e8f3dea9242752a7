// GraphX's own algorithms on an edge DataFrame, for checking and timing
// grotto against Spark. GraphFrames runs GraphX for pageRank,
// shortestPaths, labelPropagation, stronglyConnectedComponents and
// triangleCount; this object calls the same library functions directly,
// because GraphFrames' own jar is not served to these machines (see
// docs/scale-out.md). Compiled at test time with the Scala compiler that
// PySpark ships (tests/python/graphx.py), and called from Python through
// the Spark session's JVM gateway: each method takes and returns a
// DataFrame, so the result is read back as any Spark table.
package grotto.reference

import org.apache.spark.graphx.{Edge, Graph}
import org.apache.spark.graphx.lib.{
  ConnectedComponents, LabelPropagation, PageRank, ShortestPaths, StronglyConnectedComponents,
  TriangleCount
}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.DataFrame
import org.apache.spark.storage.StorageLevel

import scala.reflect.runtime.universe.TypeTag

object GraphX {

  /** The graph of `edges`' long columns `src` and `dst`; with `bothWays`,
    * each edge is also stored reversed (an undirected graph, as grotto's
    * `--undirected` stores it). Self-loops are kept as given. */
  def graph(edges: DataFrame, bothWays: Boolean): Graph[Int, Int] = {
    val rows = edges.select("src", "dst").rdd
    val arcs = rows.flatMap { r =>
      val s = r.getLong(0)
      val d = r.getLong(1)
      if (bothWays && s != d) Iterator(Edge(s, d, 1), Edge(d, s, 1)) else Iterator(Edge(s, d, 1))
    }
    Graph.fromEdges(arcs, 0, StorageLevel.MEMORY_AND_DISK, StorageLevel.MEMORY_AND_DISK)
  }

  /** Per-vertex values as a DataFrame of `id` and `column`. */
  private def table[A: TypeTag](edges: DataFrame, values: RDD[(Long, A)], column: String): DataFrame =
    edges.sparkSession.createDataFrame(values).toDF("id", column)

  /** Builds the graph and counts its vertices and edges, which every
    * algorithm here pays first: GraphX's load of an edge table. */
  def load(edges: DataFrame, bothWays: Boolean): Array[Long] = {
    val g = graph(edges, bothWays)
    val counts = Array(g.vertices.count(), g.edges.count())
    g.unpersist(blocking = false)
    counts
  }

  /** GraphX PageRank for a fixed number of iterations (what GraphFrames'
    * `pageRank(maxIter=...)` runs): column `pagerank`. */
  def pageRank(edges: DataFrame, bothWays: Boolean, iterations: Int, resetProb: Double): DataFrame = {
    table(edges, PageRank.run(graph(edges, bothWays), iterations, resetProb).vertices, "pagerank")
  }

  /** GraphX PageRank until no vertex changes by more than `tol`
    * (GraphFrames' `pageRank(tol=...)`): column `pagerank`. */
  def pageRankUntil(edges: DataFrame, bothWays: Boolean, tol: Double, resetProb: Double): DataFrame = {
    table(edges, PageRank.runUntilConvergence(graph(edges, bothWays), tol, resetProb).vertices, "pagerank")
  }

  /** Connected components, each labelled by its smallest vertex id:
    * column `component`. */
  def connectedComponents(edges: DataFrame): DataFrame = {
    table(edges, ConnectedComponents.run(graph(edges, bothWays = false)).vertices, "component")
  }

  /** Hops from each vertex to `landmark` along the edges' direction
    * (GraphFrames' `shortestPaths(landmarks=[landmark])`); vertices that
    * cannot reach it are left out: column `distance`. */
  def shortestPaths(edges: DataFrame, bothWays: Boolean, landmark: Long): DataFrame = {
    val maps = ShortestPaths.run(graph(edges, bothWays), Seq(landmark)).vertices
    table(edges, maps.flatMap { case (id, m) => m.get(landmark).map(d => (id, d.toLong)) }, "distance")
  }

  /** Synchronous label propagation for `steps` supersteps (GraphFrames'
    * `labelPropagation(maxIter=steps)`): each edge carries labels both
    * ways, a vertex takes its neighbours' most frequent label: column
    * `label`. */
  def labelPropagation(edges: DataFrame, steps: Int): DataFrame = {
    table(edges, LabelPropagation.run(graph(edges, bothWays = false), steps).vertices, "label")
  }

  /** Strongly connected components, each labelled by its smallest vertex
    * id, with at most `iterations` rounds: column `component`. */
  def stronglyConnected(edges: DataFrame, iterations: Int): DataFrame = {
    table(edges, StronglyConnectedComponents.run(graph(edges, bothWays = false), iterations).vertices, "component")
  }

  /** Triangles through each vertex, edge direction ignored: column
    * `count` (GraphFrames' `triangleCount`). */
  def triangleCount(edges: DataFrame): DataFrame = {
    table(edges, TriangleCount.run(graph(edges, bothWays = false)).vertices, "count")
  }
}
