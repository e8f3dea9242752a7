"""GraphX, Spark's own graph library, as the reference for grotto.spark:
compiles tests/spark/GraphX.scala with the Scala compiler that PySpark
ships (no download), starts a local Spark session with it on the driver's
class path, and calls its functions on DataFrames. GraphFrames runs these
same GraphX functions for pageRank, shortestPaths, labelPropagation,
stronglyConnectedComponents and triangleCount; its own jar is not served
to these machines (docs/scale-out.md). Used by tests/python/test_spark.py
and bench/python/spark_vs_grotto.py."""

import hashlib
import os
import subprocess

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "spark", "GraphX.scala")


def jars_dir():
    import pyspark

    return os.path.join(os.path.dirname(pyspark.__file__), "jars")


def compile_reference(out_dir):
    """The reference jar, compiled once per source and Spark version into
    ``out_dir``."""
    import pyspark

    with open(SOURCE, "rb") as f:
        key = hashlib.sha256(f.read() + pyspark.__version__.encode()).hexdigest()[:16]
    jar = os.path.join(out_dir, f"graphx-reference-{key}.jar")
    if os.path.exists(jar):
        return jar
    os.makedirs(out_dir, exist_ok=True)
    partial = jar + ".part.jar"
    cp = os.path.join(jars_dir(), "*")
    subprocess.run(
        ["java", "-cp", cp, "scala.tools.nsc.Main", "-usejavacp", "-nowarn", "-d", partial, SOURCE],
        check=True, capture_output=True, text=True,
    )
    os.replace(partial, jar)
    return jar


def session(jar, cores=2, memory="1g", name="grotto-tests"):
    """A local Spark session (``local[cores]``) with the reference jar on
    the driver's class path."""
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(f"local[{cores}]")
        .appName(name)
        .config("spark.driver.extraClassPath", jar)
        .config("spark.driver.memory", memory)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(2 * cores))
        .config("spark.default.parallelism", str(2 * cores))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class GraphX:
    """The Scala object's functions, each taking and giving a DataFrame."""

    def __init__(self, spark):
        self.spark = spark
        self.jvm = spark._jvm.grotto.reference.GraphX

    def _df(self, jdf):
        from pyspark.sql import DataFrame

        return DataFrame(jdf, self.spark)

    def load(self, edges, both_ways=False):
        """(vertices, edges) of the graph GraphX builds, built and counted."""
        return tuple(self.jvm.load(edges._jdf, both_ways))

    def page_rank(self, edges, iterations, reset=0.15, both_ways=False):
        return self._df(self.jvm.pageRank(edges._jdf, both_ways, iterations, float(reset)))

    def page_rank_until(self, edges, tol, reset=0.15, both_ways=False):
        return self._df(self.jvm.pageRankUntil(edges._jdf, both_ways, float(tol), float(reset)))

    def connected_components(self, edges):
        return self._df(self.jvm.connectedComponents(edges._jdf))

    def shortest_paths(self, edges, landmark, both_ways=False):
        return self._df(self.jvm.shortestPaths(edges._jdf, both_ways, int(landmark)))

    def label_propagation(self, edges, steps):
        return self._df(self.jvm.labelPropagation(edges._jdf, steps))

    def strongly_connected(self, edges, iterations=100):
        return self._df(self.jvm.stronglyConnected(edges._jdf, iterations))

    def triangle_count(self, edges):
        return self._df(self.jvm.triangleCount(edges._jdf))
