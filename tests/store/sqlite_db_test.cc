#include "store/sqlite_db.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace steward::store {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("steward_sqlite_db_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + suffix);
  return p.string();
}

int64_t CountRows(SqliteDb* db) {
  auto q = db->Prepare("SELECT count(*) FROM t");
  EXPECT_TRUE(q.ok()) << q.status().ToString();
  auto row = q->Step();
  EXPECT_TRUE(row.ok() && *row);
  return q->Int(0);
}

TEST(SqliteDbTest, WithoutCreateAMissingFileIsAnErrorAndStaysMissing) {
  const std::string path = TempPath("missing.db");
  auto db = SqliteDb::Open(path, {.create_if_missing = false});
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(db.status().message(), HasSubstr(path + ": cannot open"));
  EXPECT_FALSE(std::filesystem::exists(path));
  // The default creates it.
  ASSERT_TRUE(SqliteDb::Open(path).ok());
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST(SqliteDbTest, ForeignFileErrorNamesTheFile) {
  const std::string path = TempPath("foreign.db");
  { std::ofstream(path) << "plain text, long enough to look like it has a header page........\n"; }
  auto db = SqliteDb::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Status::Code::kIoError);
  EXPECT_THAT(db.status().message(), HasSubstr(path + ": "));
  EXPECT_THAT(db.status().message(), HasSubstr("not a database"));
}

TEST(SqliteDbTest, TransactionRollsBackUnlessCommitted) {
  const std::string path = TempPath("txn.db");
  auto db = SqliteDb::Open(path);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t(x INTEGER)").ok());
  {
    SqliteTransaction txn(db->get());
    ASSERT_TRUE(txn.Begin().ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO t VALUES (1)").ok());
  }  // No Commit: rolled back.
  EXPECT_EQ(CountRows(db->get()), 0);
  {
    SqliteTransaction txn(db->get());
    ASSERT_TRUE(txn.Begin().ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO t VALUES (1)").ok());
    ASSERT_TRUE(txn.Commit().ok());
  }
  EXPECT_EQ(CountRows(db->get()), 1);
}

// A cached statement is prepared once and comes back reset and unbound, so the next use binds
// afresh; its errors name the SQL; the database closes with statements still cached.
TEST(SqliteDbTest, CachedStatementsAreReusedResetAndUnbound) {
  const std::string path = TempPath("cached.db");
  auto db = SqliteDb::Open(path);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t(x INTEGER)").ok());
  auto first = (*db)->Cached("INSERT INTO t VALUES (?)");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE((*first)->Bind(1, 7).Run().ok());
  auto again = (*db)->Cached("INSERT INTO t VALUES (?)");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *first);
  ASSERT_TRUE((*again)->Run().ok());  // Unbound: inserts NULL, not 7 again.
  auto nulls = (*db)->Prepare("SELECT count(*) FROM t WHERE x IS NULL");
  ASSERT_TRUE(nulls.ok() && *nulls->Step());
  EXPECT_EQ(nulls->Int(0), 1);
  EXPECT_EQ(CountRows(db->get()), 2);
  auto bad = (*db)->Cached("INSERT INTO missing VALUES (1)");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().ToString(), HasSubstr("missing"));
  SqliteTransaction txn(db->get());  // BEGIN and COMMIT go through the cache too.
  ASSERT_TRUE(txn.Begin().ok());
  ASSERT_TRUE((*db)->ExecCached("INSERT INTO t VALUES (3)").ok());
  ASSERT_TRUE(txn.Commit().ok());
  EXPECT_EQ(CountRows(db->get()), 3);
}

// A reader's BeginRead holds one snapshot across statements and takes no write lock: a second
// connection commits meanwhile, and the reader sees the commit only after its transaction ends.
TEST(SqliteDbTest, ReadTransactionSeesOneSnapshotAndDoesNotBlockWriters) {
  const std::string path = TempPath("snapshot.db");
  auto writer = SqliteDb::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Exec("CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1)").ok());
  auto reader = SqliteDb::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();

  SqliteTransaction read(reader->get());
  ASSERT_TRUE(read.BeginRead().ok());
  EXPECT_EQ(CountRows(reader->get()), 1);  // The snapshot starts at the first read.
  {
    SqliteTransaction write(writer->get());
    ASSERT_TRUE(write.Begin().ok());
    ASSERT_TRUE((*writer)->Exec("INSERT INTO t VALUES (2)").ok());
    ASSERT_TRUE(write.Commit().ok());
  }
  EXPECT_EQ(CountRows(reader->get()), 1);
  ASSERT_TRUE(read.Commit().ok());
  EXPECT_EQ(CountRows(reader->get()), 2);
}

}  // namespace
}  // namespace steward::store
