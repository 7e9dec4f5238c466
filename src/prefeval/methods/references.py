"""The papers prefeval implements or follows, with their full citations.

Docstrings, help texts, warnings and reports cite them as "Authors (year) §x, Eq. y"; this module resolves
such a short form to the full reference (``prefeval.methods.references.PAPERS``), and the method declarations of
:mod:`prefeval.methods` carry a :class:`Reference` each.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PAPERS", "Reference", "cite"]


@dataclass(frozen=True)
class Reference:
    """One paper: ``short`` is how the code cites it ("Diaz & Mitra (2023)")."""

    key: str
    authors: str
    year: int
    title: str
    venue: str
    doi: str | None = None

    @property
    def short(self) -> str:
        """The citation form used in the code: surnames and year."""
        return f"{self.surnames} ({self.year})"

    @property
    def surnames(self) -> str:
        names = [author.split()[-1] for author in self.authors.split(", ")]
        if len(names) > 2:
            return f"{names[0]} et al."
        return " & ".join(names)

    def at(self, where: str = "") -> str:
        """``"Diaz & Mitra (2023) §5.2, Eq. 11"`` for ``where="§5.2, Eq. 11"``."""
        return f"{self.short} {where}".strip()

    def full(self) -> str:
        """The full reference: authors, year, title, venue and DOI."""
        doi = f" https://doi.org/{self.doi}" if self.doi else ""
        return f"{self.authors} ({self.year}). {self.title}. {self.venue}.{doi}"


PAPERS: dict[str, Reference] = {ref.key: ref for ref in (
    Reference("diaz-mitra-2023", "F. Diaz, B. Mitra", 2023, "Recall, Robustness, and Lexicographic Evaluation",
              "arXiv 2302.11370 (ACM Transactions on Recommender Systems, 2025)", "10.48550/arXiv.2302.11370"),
    Reference("diaz-2023", "F. Diaz", 2023, "Best-Case Retrieval Evaluation: Improving the Sensitivity of "
              "Reciprocal Rank with Lexicographic Precision", "EVIA 2023 (arXiv 2306.07908)",
              "10.48550/arXiv.2306.07908"),
    Reference("diaz-ferraro-2022", "F. Diaz, A. Ferraro", 2022, "Offline Retrieval Evaluation Without Evaluation "
              "Metrics", "SIGIR 2022", "10.1145/3477495.3532033"),
    Reference("amigo-2018", "E. Amigó, D. Spina, J. Carrillo-de-Albornoz", 2018, "An Axiomatic Analysis of "
              "Diversity Evaluation Metrics: Introducing the Rank-Biased Utility Metric", "SIGIR 2018",
              "10.1145/3209978.3210024"),
    Reference("ferrante-2015", "M. Ferrante, N. Ferro, M. Maistro", 2015, "Towards a Formal Framework for "
              "Utility-oriented Measurements of Retrieval Effectiveness", "ICTIR 2015", "10.1145/2808194.2809452"),
    Reference("dwork-2001", "C. Dwork, R. Kumar, M. Naor, D. Sivakumar", 2001, "Rank Aggregation Methods for the "
              "Web", "WWW 2001", "10.1145/371920.372165"),
    Reference("carterette-2012", "B. Carterette", 2012, "Multiple Testing in Statistical Analysis of "
              "Systems-Based Information Retrieval Experiments", "ACM TOIS 30(1)", "10.1145/2094072.2094076"),
    Reference("chan-1979", "T. F. Chan, G. H. Golub, R. J. LeVeque", 1979, "Updating Formulae and a Pairwise "
              "Algorithm for Computing Sample Variances", "Technical Report STAN-CS-79-773, Stanford University"),
    Reference("sharir-1981", "M. Sharir", 1981, "A Strong-Connectivity Algorithm and Its Applications in Data Flow "
              "Analysis", "Computers & Mathematics with Applications 7(1), pp. 67-72", "10.1016/0898-1221(81)90008-0"),
    Reference("clarke-2008", "C. L. A. Clarke, M. Kolla, G. V. Cormack, O. Vechtomova, A. Ashkan, S. Büttcher, "
              "I. MacKinnon", 2008, "Novelty and Diversity in Information Retrieval Evaluation", "SIGIR 2008",
              "10.1145/1390334.1390446"),
    Reference("clarke-2009", "C. L. A. Clarke, M. Kolla, O. Vechtomova", 2009, "An Effectiveness Measure for "
              "Ambiguous and Underspecified Queries", "ICTIR 2009, LNCS 5766, pp. 188-199"),
    Reference("agrawal-2009", "R. Agrawal, S. Gollapudi, A. Halverson, S. Ieong", 2009, "Diversifying Search "
              "Results", "WSDM 2009", "10.1145/1498759.1498766"),
    Reference("chapelle-2009", "O. Chapelle, D. Metzler, Y. Zhang, P. Grinspan", 2009, "Expected Reciprocal Rank "
              "for Graded Relevance", "CIKM 2009", "10.1145/1645953.1646033"),
    Reference("moffat-zobel-2008", "A. Moffat, J. Zobel", 2008, "Rank-Biased Precision for Measurement of "
              "Retrieval Effectiveness", "ACM TOIS 27(1)", "10.1145/1416950.1416952"),
    Reference("zhai-2003", "C. Zhai, W. W. Cohen, J. Lafferty", 2003, "Beyond Independent Relevance: Methods and "
              "Evaluation Metrics for Subtopic Retrieval", "SIGIR 2003", "10.1145/860435.860440"),
    Reference("sakai-song-2011", "T. Sakai, R. Song", 2011, "Evaluating Diversified Search Results Using Per-Intent "
              "Graded Relevance", "SIGIR 2011", "10.1145/2009916.2010055"),
    Reference("sakai-2010", "T. Sakai, N. Craswell, R. Song, S. Robertson, Z. Dou, C.-Y. Lin", 2010, "Simple "
              "Evaluation Metrics for Diversified Search Results", "EVIA 2010, pp. 42-50"),
    Reference("yang-lad-2009", "Y. Yang, A. Lad", 2009, "Modeling Expected Utility of Multi-session Information "
              "Distillation", "ICTIR 2009, pp. 164-175"),
    Reference("luo-2013", "J. Luo, C. Wing, H. Yang, M. Hearst", 2013, "The Water Filling Model and the Cube Test: "
              "Multi-dimensional Evaluation for Professional Search", "CIKM 2013, pp. 709-714"),
    Reference("sakai-2007", "T. Sakai", 2007, "Alternatives to Bpref", "SIGIR 2007", "10.1145/1277741.1277756"),
    Reference("buckley-voorhees-2004", "C. Buckley, E. M. Voorhees", 2004, "Retrieval Evaluation with Incomplete "
              "Information", "SIGIR 2004", "10.1145/1008992.1009000"),
    Reference("zobel-1998", "J. Zobel", 1998, "How Reliable Are the Results of Large-Scale Information Retrieval "
              "Experiments?", "SIGIR 1998", "10.1145/290941.291014"),
    Reference("buckley-2007", "C. Buckley, D. Dimmick, I. Soboroff, E. Voorhees", 2007, "Bias and the Limits of "
              "Pooling for Large Collections", "Information Retrieval 10(6), pp. 491-508", "10.1007/s10791-007-9032-x"),
    Reference("clinger-1990", "W. D. Clinger", 1990, "How to Read Floating Point Numbers Accurately", "PLDI 1990",
              "10.1145/93542.93557"),
    Reference("lemire-2021", "D. Lemire", 2021, "Number Parsing at a Gigabyte per Second",
              "Software: Practice and Experience 51(8)", "10.1002/spe.2984"),
    Reference("mushtak-lemire-2023", "N. Mushtak, D. Lemire", 2023, "Fast Number Parsing Without Fallback",
              "Software: Practice and Experience 53(6)", "10.1002/spe.3198"),
)}


def cite(key: str, where: str = "") -> str:
    """Short citation of paper ``key`` (a key of :data:`PAPERS`), e.g. ``cite("diaz-2023", "§3")``."""
    return PAPERS[key].at(where)
